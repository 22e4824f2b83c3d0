/**
 * The browser half of passkey ceremonies, with the platform's own JSON helpers (WebAuthn Level 3:
 * PublicKeyCredential.parse*OptionsFromJSON and credential.toJSON()): the server's options in,
 * the authenticator's answer out, ready for the SDK.
 */

export function passkeysSupported(): boolean {
  return typeof window.PublicKeyCredential === 'function' && typeof PublicKeyCredential.parseCreationOptionsFromJSON === 'function';
}

/** A user who closes the browser's passkey dialog: not an error worth a red alert. */
export function isCancelled(error: unknown): boolean {
  return error instanceof DOMException && (error.name === 'NotAllowedError' || error.name === 'AbortError');
}

export async function createPasskey(options: unknown) {
  const credential = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options as PublicKeyCredentialCreationOptionsJSON) });
  if (!(credential instanceof PublicKeyCredential)) throw new Error('The browser returned no passkey.');
  return credential.toJSON() as never;
}

export async function getPasskey(options: unknown) {
  const credential = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options as PublicKeyCredentialRequestOptionsJSON) });
  if (!(credential instanceof PublicKeyCredential)) throw new Error('The browser returned no passkey.');
  return credential.toJSON() as never;
}
