import { createGatehouse, memoryTokenStore, type FetchLike, type GatehouseOptions, type TokenStore } from '../src/index.js';
import { STRONG_PASSWORD, uniqueEmail, type LiveServer } from './live-server.js';

export interface Recorded {
  method: string;
  path: string;
  status: number;
  headers: Record<string, string>;
  responseHeaders: Headers;
  /** Milliseconds since the recorder was made, when the answer arrived. */
  at: number;
}

/** globalThis.fetch that remembers what went out and what came back. */
export function recordingFetch(): { fetch: FetchLike; calls: Recorded[]; count(method: string, path: string): number } {
  const calls: Recorded[] = [];
  const start = Date.now();
  return {
    calls,
    count: (method, path) => calls.filter((c) => c.method === method && c.path === path).length,
    async fetch(input, init) {
      const response = await globalThis.fetch(input, init);
      calls.push({
        method: init.method ?? 'GET',
        path: new URL(input).pathname,
        status: response.status,
        headers: { ...(init.headers as Record<string, string>) },
        responseHeaders: response.headers,
        at: Date.now() - start,
      });
      return response;
    },
  };
}

export interface SignedIn {
  gh: ReturnType<typeof createGatehouse>;
  store: TokenStore;
  email: string;
  password: string;
  userId: string;
}

/** A fresh account, registered and logged in through the SDK. */
export async function signUp(server: LiveServer, options: Partial<GatehouseOptions> = {}): Promise<SignedIn> {
  const store = options.tokenStore ?? memoryTokenStore();
  const gh = createGatehouse({ baseUrl: server.base, ...options, tokenStore: store });
  const email = uniqueEmail();
  const user = await gh.auth.register({ email, password: STRONG_PASSWORD, name: 'SDK Test' });
  await gh.auth.login({ username: email, password: STRONG_PASSWORD });
  return { gh, store, email, password: STRONG_PASSWORD, userId: user.id };
}

/** Follows the confirmation link mailed at sign-up (adding a way into the account needs it). */
export async function confirmEmail(server: LiveServer, signedIn: SignedIn): Promise<void> {
  await signedIn.gh.auth.verifyEmail({ token: await server.mailedToken(signedIn.email, 'verify-email') });
}

/** Catches the rejection of `promise`, failing the test when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail, but it succeeded');
}
