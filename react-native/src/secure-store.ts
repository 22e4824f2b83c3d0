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
      const count = Math.max(1, Math.ceil(value.length / CHUNK_CHARS));
      for (let i = 0; i < count; i++) await store.setItemAsync(chunkKey(generation, i), value.slice(i * CHUNK_CHARS, (i + 1) * CHUNK_CHARS), options);
      await store.setItemAsync(name, JSON.stringify({ generation, chunks: count }), options);
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
  return {
    get: async (): Promise<StoredSession | null> => parseStoredSession(await session().read()),
    set: (value) => session().write(JSON.stringify(value)),
    async clear() {
      await session().remove();
      await user().remove();
    },
    async getUser(): Promise<User | null> {
      try {
        return JSON.parse((await user().read()) ?? 'null') as User | null;
      } catch {
        return null;
      }
    },
    setUser: (value) => (value ? user().write(JSON.stringify(value)) : user().remove()),
  };
}
