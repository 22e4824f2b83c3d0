/**
 * Where the signed-in session lives between calls (and between app starts). The SDK reads the
 * store before each authenticated call rather than caching it, so several tabs or clients sharing
 * one store see each other's refreshes instead of reusing a rotated refresh token.
 */

/** A session as stored: the token pair from login/refresh plus when the access token expires. */
export interface StoredSession {
  accessToken: string;
  refreshToken: string;
  /** Epoch milliseconds (the client's clock) at which the access token expires. */
  expiresAt: number;
  scope: string;
}

/**
 * Implement this to keep the session somewhere else: Expo SecureStore, the iOS Keychain, an
 * encrypted file. Methods may be sync or async. `get` must return null (not throw) when nothing,
 * or nothing readable, is stored.
 */
export interface TokenStore {
  get(): Promise<StoredSession | null> | StoredSession | null;
  set(session: StoredSession): Promise<void> | void;
  clear(): Promise<void> | void;
}

/** Keeps the session in this object only: gone when the page or process ends. The default. */
export function memoryTokenStore(initial: StoredSession | null = null): TokenStore {
  let session = initial;
  return {
    get: () => session,
    set: (next) => void (session = next),
    clear: () => void (session = null),
  };
}

/** The subset of the Web Storage API the store uses (localStorage, sessionStorage, or a polyfill). */
export interface WebStorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** JSON text → StoredSession, or null when it is missing, corrupt, or from an incompatible version. */
export function parseStoredSession(text: string | null | undefined): StoredSession | null {
  if (!text) return null;
  try {
    const value = JSON.parse(text) as Partial<StoredSession> | null;
    if (value && typeof value.accessToken === 'string' && typeof value.refreshToken === 'string' && typeof value.expiresAt === 'number') {
      return { accessToken: value.accessToken, refreshToken: value.refreshToken, expiresAt: value.expiresAt, scope: typeof value.scope === 'string' ? value.scope : '' };
    }
  } catch {
    // Unreadable: treat as signed out rather than failing every call.
  }
  return null;
}

/**
 * Keeps the session in Web Storage (default: localStorage, so it survives reloads and is shared
 * by the origin's tabs). Anything that can run script on the origin can read it: with a strict
 * CSP this is the usual trade-off for SPAs; prefer memoryTokenStore when that is not acceptable.
 */
export function webStorageTokenStore(storage?: WebStorageLike, key = 'gatehouse.session'): TokenStore {
  // Resolved on first use, not at import: React Native, Node and workers have no localStorage.
  const resolve = (): WebStorageLike => {
    const found = storage ?? (globalThis as { localStorage?: WebStorageLike }).localStorage;
    if (!found) throw new Error('webStorageTokenStore: no storage given and no globalThis.localStorage here');
    return found;
  };
  return {
    get: () => parseStoredSession(resolve().getItem(key)),
    set: (session) => resolve().setItem(key, JSON.stringify(session)),
    clear: () => resolve().removeItem(key),
  };
}
