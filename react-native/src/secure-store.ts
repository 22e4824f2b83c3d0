/**
 * The session in the platform's secure storage (iOS Keychain, Android Keystore) through
 * expo-secure-store, an optional peer dependency. SecureStore warns about, and on some devices
 * refuses, values over about 2 KB, so values are written in chunks; a small head entry names the
 * chunks of the current value, written last, so a value is never read half old and half new.
 */
import { parseStoredSession, type StoredSession } from '@gatehouse/sdk';
import type { SessionStorage, User } from './storage.js';

/** The part of expo-secure-store this store uses (its module, or a stand-in in tests). */
export interface SecureStoreLike {
  getItemAsync(key: string, options?: Record<string, unknown>): Promise<string | null>;
  setItemAsync(key: string, value: string, options?: Record<string, unknown>): Promise<void>;
  deleteItemAsync(key: string, options?: Record<string, unknown>): Promise<void>;
}

export interface SecureStoreOptions {
  /** Key prefix ([A-Za-z0-9._-] only, as SecureStore requires). Default `gatehouse`. */
  key?: string;
  /** Options for every SecureStore call, e.g. `{ keychainAccessible: SecureStore.AFTER_FIRST_UNLOCK }` so a background task can refresh. */
  options?: Record<string, unknown>;
  /** The module itself; by default `require('expo-secure-store')`. */
  secureStore?: SecureStoreLike;
}

/** Under SecureStore's ~2048-byte value limit with room to spare, whatever the characters' UTF-8 length. */
export const CHUNK_CHARS = 500;

interface Head {
  generation: string;
  chunks: number;
}

function loadSecureStore(): SecureStoreLike {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('expo-secure-store') as SecureStoreLike;
  } catch {
    throw new Error('secureStoreTokenStore needs expo-secure-store: npx expo install expo-secure-store (or pass a tokenStore of your own)');
  }
}

/** Pieces of at most CHUNK_CHARS, never cut between the two halves of a surrogate pair (an emoji). */
function splitChunks(value: string): string[] {
  const chunks: string[] = [];
  for (let start = 0; start < value.length || chunks.length === 0; ) {
    let end = Math.min(value.length, start + CHUNK_CHARS);
    const last = value.charCodeAt(end - 1);
    if (end < value.length && last >= 0xd800 && last <= 0xdbff) end--; // a high surrogate: keep its pair together
    chunks.push(value.slice(start, end));
    start = end;
  }
  return chunks;
}

/**
 * One operation at a time on a store: a read during a write could meet a chunk the write just
 * deleted, and two writes (or a write and a clear) would leave orphaned chunks or bring back a
 * head after sign-out.
 */
function serialized() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(operation: () => Promise<T>): Promise<T> => {
    const result = tail.then(operation, operation);
    tail = result.catch(() => {});
    return result;
  };
}

/** One chunked value under `name`: read, written (new generation, then the head), deleted. */
function chunkedValue(store: SecureStoreLike, name: string, options: Record<string, unknown> | undefined) {
  const chunkKey = (generation: string, i: number) => `${name}.${generation}.${i}`;
  const readHead = async (): Promise<Head | null> => {
    try {
      const head = JSON.parse((await store.getItemAsync(name, options)) ?? 'null') as Head | null;
      return head && typeof head.generation === 'string' && Number.isInteger(head.chunks) ? head : null;
    } catch {
      return null;
    }
  };
  const removeChunks = async (head: Head | null) => {
    if (head) for (let i = 0; i < head.chunks; i++) await store.deleteItemAsync(chunkKey(head.generation, i), options);
  };
  return {
    async read(): Promise<string | null> {
      const head = await readHead();
      if (!head) return null;
      const parts: string[] = [];
      for (let i = 0; i < head.chunks; i++) {
        const part = await store.getItemAsync(chunkKey(head.generation, i), options);
        if (part === null) return null; // a value cut short reads as nothing, never as garbage
        parts.push(part);
      }
      return parts.join('');
    },
    async write(value: string): Promise<void> {
      const previous = await readHead();
      const generation = Math.random().toString(36).slice(2, 10);
      const chunks = splitChunks(value);
      for (const [i, chunk] of chunks.entries()) await store.setItemAsync(chunkKey(generation, i), chunk, options);
      await store.setItemAsync(name, JSON.stringify({ generation, chunks: chunks.length }), options);
      await removeChunks(previous);
    },
    async remove(): Promise<void> {
      const previous = await readHead();
      await store.deleteItemAsync(name, options);
      await removeChunks(previous);
    },
  };
}

/**
 * The default storage of <GatehouseProvider>: the token pair and the last seen user in
 * SecureStore, nothing in AsyncStorage.
 */
export function secureStoreTokenStore(config: SecureStoreOptions = {}): SessionStorage {
  const prefix = config.key ?? 'gatehouse';
  if (!/^[A-Za-z0-9._-]+$/.test(prefix)) throw new Error(`secureStoreTokenStore: key must match [A-Za-z0-9._-]+, got "${prefix}"`);
  let store: SecureStoreLike | undefined = config.secureStore;
  const resolved = () => (store ??= loadSecureStore());
  const session = () => chunkedValue(resolved(), `${prefix}.session`, config.options);
  const user = () => chunkedValue(resolved(), `${prefix}.user`, config.options);
  const inTurn = serialized();
  return {
    get: () => inTurn(async (): Promise<StoredSession | null> => parseStoredSession(await session().read())),
    set: (value) => inTurn(() => session().write(JSON.stringify(value))),
    clear: () =>
      inTurn(async () => {
        await session().remove();
        await user().remove();
      }),
    getUser: () =>
      inTurn(async (): Promise<User | null> => {
        try {
          return JSON.parse((await user().read()) ?? 'null') as User | null;
        } catch {
          return null;
        }
      }),
    setUser: (value) => inTurn(() => (value ? user().write(JSON.stringify(value)) : user().remove())),
  };
}
