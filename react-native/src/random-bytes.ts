import type { RandomBytes } from '@gatehouse/sdk';

/**
 * Random bytes for PKCE and state: undefined where the runtime has crypto.getRandomValues (the
 * SDK's default), else expo-crypto's getRandomBytes (Hermes has no Web Crypto of its own).
 */
export function platformRandomBytes(): RandomBytes | undefined {
  if ((globalThis as { crypto?: { getRandomValues?: unknown } }).crypto?.getRandomValues) return undefined;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require('expo-crypto') as { getRandomBytes: RandomBytes }).getRandomBytes;
  } catch {
    throw new Error('Signing in needs random bytes: npx expo install expo-crypto (or pass randomBytes)');
  }
}

/** The same, without the error: undefined where neither Web Crypto nor expo-crypto is there (the SDK then sends no Idempotency-Key). */
export function availableRandomBytes(): RandomBytes | undefined {
  try {
    return platformRandomBytes();
  } catch {
    return undefined;
  }
}
