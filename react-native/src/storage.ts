/**
 * Where the package keeps the session between app starts: the SDK's token store, plus the
 * signed-in user as last seen, so a cold start can show the user before any request completes.
 */
import { memoryTokenStore, type Schemas, type TokenStore } from '@gatehouse/sdk';

export type User = Schemas['Me'];

export interface SessionStorage extends TokenStore {
  getUser(): Promise<User | null> | User | null;
  setUser(user: User | null): Promise<void> | void;
}

/** Kept in memory only: gone when the app ends. For tests, and for apps that never persist. */
export function memorySessionStorage(): SessionStorage {
  let user: User | null = null;
  return { ...memoryTokenStore(), getUser: () => user, setUser: (next) => void (user = next) };
}

/** Any SDK token store (your own Keychain wrapper, say), with the user cached in memory beside it. */
export function withUserCache(store: TokenStore): SessionStorage {
  if (isSessionStorage(store)) return store;
  let user: User | null = null;
  return { get: () => store.get(), set: (s) => store.set(s), clear: () => store.clear(), getUser: () => user, setUser: (next) => void (user = next) };
}

function isSessionStorage(store: TokenStore): store is SessionStorage {
  return typeof (store as Partial<SessionStorage>).getUser === 'function' && typeof (store as Partial<SessionStorage>).setUser === 'function';
}
