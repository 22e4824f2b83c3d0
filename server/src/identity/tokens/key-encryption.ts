import { secretSealer } from '../../kernel/sealed-secrets.js';

/** Private signing keys at rest: sealed under GATEHOUSE_SECRET, plain PEM without it. */
const signingKeys = secretSealer({ kind: 'signing key', purpose: 'signing-keys v1', plainMarker: 'pem:' });

export const sealPrivateKey = signingKeys.seal;
export const openPrivateKey = signingKeys.open;
