import { createSignInNonce as sdkSignInNonce, type SignInNonce } from '@gatehouse/sdk';
import { platformRandomBytes } from './random-bytes.js';

/**
 * A nonce for a native sign-in sheet, from expo-crypto's random bytes where Hermes has no Web
 * Crypto: give `hashedNonce` to Sign in with Apple (or `nonce` to Google's sheet), and `nonce` to
 * `signInWithIdToken`.
 */
export function createSignInNonce(): SignInNonce {
  const randomBytes = platformRandomBytes();
  return randomBytes ? sdkSignInNonce(randomBytes) : sdkSignInNonce();
}
