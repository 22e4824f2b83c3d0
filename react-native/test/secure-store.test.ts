/**
 * secureStoreTokenStore over a stand-in for expo-secure-store (the native Keychain/Keystore does
 * not run here) that refuses, as SecureStore does on some devices, any value over 2048 bytes.
 */
import { CHUNK_CHARS, secureStoreTokenStore, type SecureStoreLike } from '../src/secure-store.js';

function strictSecureStore(): SecureStoreLike & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItemAsync: async (key) => items.get(key) ?? null,
    async setItemAsync(key, value) {
      if (!/^[A-Za-z0-9._-]+$/.test(key)) throw new Error(`invalid key ${key}`);
      if (Buffer.byteLength(value) > 2048) throw new Error(`value of ${key} is over 2048 bytes`);
      items.set(key, value);
    },
    deleteItemAsync: async (key) => void items.delete(key),
  };
}

const bigSession = {
  accessToken: `eyJ${'a'.repeat(3000)}`,
  refreshToken: `gthr_${'b'.repeat(43)}`,
  expiresAt: 1_800_000_000_000,
  scope: 'agents:read agents:write chats:read chats:write webhooks:read webhooks:write usage:read',
};

describe('secureStoreTokenStore', () => {
  it('keeps a session larger than one SecureStore value, in chunks, and reads it back whole', async () => {
    const secureStore = strictSecureStore();
    const store = secureStoreTokenStore({ secureStore });
    await store.set(bigSession);
    expect(await store.get()).toEqual(bigSession);
    expect(secureStore.items.size).toBeGreaterThan(Math.ceil(JSON.stringify(bigSession).length / CHUNK_CHARS));
    // Multi-byte characters stay under the byte limit too.
    const user = { id: 'usr_1', email: 'ada@example.com', name: 'Ádá 𝒜𝒹𝒶 '.repeat(200), created_at: 'x', tier: 'free', email_verified: true, limits: { per_minute: 100, per_day: 10000 } };
    await store.setUser(user as never);
    expect(await store.getUser()).toEqual(user);
  });

  it('replaces a value without leaving the old chunks, and clears everything', async () => {
    const secureStore = strictSecureStore();
    const store = secureStoreTokenStore({ secureStore, key: 'app.auth' });
    await store.set(bigSession);
    const size = secureStore.items.size;
    await store.set({ ...bigSession, refreshToken: 'gthr_next' });
    expect(secureStore.items.size).toBe(size);
    expect((await store.get())?.refreshToken).toBe('gthr_next');
    await store.clear();
    expect([...secureStore.items.keys()]).toEqual([]);
    expect(await store.get()).toBeNull();
  });

  it('reads a value cut short (a chunk missing) as nothing, not as a broken session', async () => {
    const secureStore = strictSecureStore();
    const store = secureStoreTokenStore({ secureStore });
    await store.set(bigSession);
    const chunk = [...secureStore.items.keys()].find((key) => /\.session\.[a-z0-9]+\.1$/.test(key))!;
    secureStore.items.delete(chunk);
    expect(await store.get()).toBeNull();
  });

  it('never cuts an emoji in two at a chunk boundary', async () => {
    const secureStore = strictSecureStore();
    const store = secureStoreTokenStore({ secureStore });
    const name = `${'a'.repeat(CHUNK_CHARS - 1 - '{"name":"'.length)}😀😀 end`;
    await store.setUser({ name } as never);
    expect(((await store.getUser()) as { name: string } | null)?.name).toBe(name);
    for (const value of secureStore.items.values()) expect(value).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it('a read while a write is under way sees the old or the new session, never nothing', async () => {
    const secureStore = strictSecureStore();
    // Every Keychain call takes a few milliseconds, as on a phone (reads the longest); reads start all through the write.
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const slow: SecureStoreLike = {
      getItemAsync: async (k) => (await pause(6), secureStore.getItemAsync(k)),
      setItemAsync: async (k, v) => (await pause(2), secureStore.setItemAsync(k, v)),
      deleteItemAsync: async (k) => (await pause(2), secureStore.deleteItemAsync(k)),
    };
    const store = secureStoreTokenStore({ secureStore: slow });
    await store.set(bigSession);
    const writing = store.set({ ...bigSession, refreshToken: 'gthr_next' });
    const reads = await Promise.all(Array.from({ length: 20 }, (_, i) => new Promise((r) => setTimeout(r, i * 4)).then(() => store.get())));
    await writing;
    for (const read of reads) expect(read?.refreshToken === bigSession.refreshToken || read?.refreshToken === 'gthr_next').toBe(true);
  });

  it('refuses a key SecureStore would not take', () => {
    expect(() => secureStoreTokenStore({ secureStore: strictSecureStore(), key: 'bad key!' })).toThrow(/key must match/);
  });
});
