/**
 * Passkeys in an app, through the platform's credential manager (iOS AuthenticationServices,
 * Android Credential Manager). The native part is `react-native-passkeys` (an optional peer
 * dependency; an Expo module), whose `create` and `get` take and return WebAuthn's JSON forms,
 * exactly what Gatehouse's options and verify routes speak. The app's domain must be associated
 * with it: the server's `/.well-known/apple-app-site-association` (APPLE_APP_IDS, webcredentials)
 * and `/.well-known/assetlinks.json` (ANDROID_APP_PACKAGE), and WEBAUTHN_ORIGINS must list the
 * Android app's `android:apk-key-hash:…` origin.
 */
import { GatehouseError, type Gatehouse } from '@gatehouse/sdk';

/** `react-native-passkeys`' shape (or a stand-in): null when the person dismissed the sheet. */
export interface PasskeyAuthenticator {
  create(options: Record<string, unknown>): Promise<Record<string, unknown> | null>;
  get(options: Record<string, unknown>): Promise<Record<string, unknown> | null>;
}

function loadPasskeys(): PasskeyAuthenticator {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('react-native-passkeys') as PasskeyAuthenticator;
  } catch {
    throw new Error('Passkeys need react-native-passkeys: npx expo install react-native-passkeys (or pass passkeys)');
  }
}

const dismissed = () => new GatehouseError({ code: 'aborted', status: 0, detail: 'The passkey sheet was closed before it finished.' });

/** The passwordless login's two steps, with the platform's passkey sheet between them; stores the session. */
export async function logInWithPasskey(client: Gatehouse, passkeys: PasskeyAuthenticator = loadPasskeys()): Promise<void> {
  const { challenge_id, options } = await client.auth.passkeyLoginOptions();
  const credential = await passkeys.get(options as Record<string, unknown>);
  if (!credential) throw dismissed();
  await client.auth.passkeyLogin({ challenge_id, credential: credential as never });
}

/**
 * Adds a passkey to the signed-in account (Settings): the password (when the account has one) and,
 * on an account with TOTP, a recent factor, then the platform's sheet. Rejects with `aborted` when
 * the person closed it.
 */
export async function addPasskey(client: Gatehouse, input: { password?: string; name?: string; passkeys?: PasskeyAuthenticator }) {
  const { challenge_id, options } = await client.me.passkeys.registrationOptions(input.password === undefined ? {} : { password: input.password });
  const credential = await (input.passkeys ?? loadPasskeys()).create(options as Record<string, unknown>);
  if (!credential) throw dismissed();
  return client.me.passkeys.add({ challenge_id, credential: credential as never, ...(input.name === undefined ? {} : { name: input.name }) });
}
