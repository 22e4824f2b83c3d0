/**
 * The signed-in state of the app, outside React (the provider hands it to hooks through
 * useSyncExternalStore). What mobile users report most in other SDKs is what this is built around:
 * - cold start: a stored session shows at once (`signed-in`, the cached user, `isStale`) and is
 *   revalidated in the background; offline, it stays signed in;
 * - foreground: one refresh when the access token is expired or close to it, shared by every
 *   caller (the SDK's refresh is single-flight, so reuse detection never fires on a race);
 * - sign-out only on a terminal answer (the refresh token refused, the account gone or
 *   disabled); network errors and 5xx keep the session and are retried with backoff.
 */
import { isGatehouseError, type Gatehouse, type RequestBody } from '@gatehouse/sdk';
import { backoffMs, type BackoffOptions } from './backoff.js';
import type { SessionStorage, User } from './storage.js';

export type SessionStatus = 'loading' | 'signed-in' | 'signed-out';

export interface SessionSnapshot {
  status: SessionStatus;
  /** The signed-in user: cached at first, then as the server last answered. Null while unknown. */
  user: User | null;
  /** True until the server has confirmed the session in this run of the app. */
  isStale: boolean;
  /** The last failure to reach the server (the session is kept meanwhile), else null. */
  error: unknown;
}

/** Something that says when the app comes to the foreground (React Native's AppState). */
export interface AppStateLike {
  addEventListener(type: 'change', listener: (state: string) => void): { remove(): void };
}

export interface SessionControllerOptions {
  client: Gatehouse;
  storage: SessionStorage;
  appState?: AppStateLike | undefined;
  retry?: BackoffOptions | undefined;
}

/** The server refused the session itself: nothing but signing in again can help. */
export function isTerminal(error: unknown): boolean {
  if (!isGatehouseError(error)) return false;
  return error.status === 401 || error.code === 'not_authenticated' || error.code === 'account_disabled';
}

export function createSessionController({ client, storage, appState, retry }: SessionControllerOptions) {
  let snapshot: SessionSnapshot = { status: 'loading', user: null, isStale: true, error: null };
  const listeners = new Set<() => void>();
  const foregroundListeners = new Set<() => void>();
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let attempt = 0;
  let revalidating: Promise<void> | null = null;
  let disposed = false;

  const set = (next: Partial<SessionSnapshot>) => {
    snapshot = { ...snapshot, ...next };
    for (const listener of listeners) listener();
  };
  const cancelRetry = () => {
    if (retryTimer !== undefined) clearTimeout(retryTimer);
    retryTimer = undefined;
  };

  async function signedOut(): Promise<void> {
    cancelRetry();
    attempt = 0;
    await storage.setUser(null);
    if (snapshot.status !== 'signed-out' || snapshot.user !== null) set({ status: 'signed-out', user: null, isStale: false, error: null });
  }

  /** A refusal of the session ends it; anything else keeps it and tries again later. */
  async function failed(error: unknown, again: () => void): Promise<void> {
    if (isTerminal(error)) {
      await client.session.clear(); // the SDK has usually cleared it already; this makes sure
      return signedOut();
    }
    set({ error });
    cancelRetry();
    if (!disposed) retryTimer = setTimeout(again, backoffMs(attempt++, retry));
  }

  /** Ask the server who is signed in (refreshing the token first if it is due). */
  function revalidate(): Promise<void> {
    revalidating ??= (async () => {
      if (!(await client.session.get())) return signedOut();
      try {
        const user = await client.me.get();
        await storage.setUser(user);
        attempt = 0;
        cancelRetry();
        set({ status: 'signed-in', user, isStale: false, error: null });
      } catch (error) {
        await failed(error, () => void revalidate());
      }
    })().finally(() => {
      revalidating = null;
    });
    return revalidating;
  }

  /** Back in the foreground: refresh now if the token is due, so the next calls need not wait. */
  async function refreshIfDue(): Promise<void> {
    if (snapshot.status !== 'signed-in') return;
    try {
      await client.session.accessToken();
      attempt = 0;
      if (snapshot.error !== null || snapshot.isStale) void revalidate();
    } catch (error) {
      await failed(error, () => void refreshIfDue());
    }
  }

  async function signIn(email: string, password: string): Promise<User> {
    await client.auth.login({ username: email, password });
    const user = await client.me.get();
    await storage.setUser(user);
    attempt = 0;
    cancelRetry();
    set({ status: 'signed-in', user, isStale: false, error: null });
    return user;
  }

  const subscription = appState?.addEventListener('change', (state) => {
    if (state !== 'active') return;
    void refreshIfDue();
    for (const listener of foregroundListeners) listener();
  });

  return {
    getSnapshot: () => snapshot,
    subscribe(listener: () => void): () => void {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    /** Called when the app comes back to the foreground (data hooks reload then). */
    onForeground(listener: () => void): () => void {
      foregroundListeners.add(listener);
      return () => void foregroundListeners.delete(listener);
    },

    /** Cold start: show the stored session at once, then confirm it in the background. */
    async start(): Promise<void> {
      const stored = await client.session.get();
      if (!stored) return signedOut();
      set({ status: 'signed-in', user: await storage.getUser(), isStale: true });
      void revalidate();
    },

    /** The SDK cleared the session (a refused refresh, a logout, another client): follow it. */
    sessionCleared: () => void signedOut(),

    revalidate,

    signIn,

    /** Creates the account, then signs in to it. */
    async signUp(input: RequestBody<'register'>): Promise<User> {
      await client.auth.register(input);
      return signIn(input.email, input.password);
    },

    /** Ends the session on the server when it can; locally always. */
    async signOut(): Promise<void> {
      try {
        await client.auth.logout();
      } catch {
        // Offline or refused: the SDK has cleared the tokens anyway, so the user is signed out here.
      }
      await signedOut();
    },

    dispose(): void {
      disposed = true;
      cancelRetry();
      subscription?.remove();
      listeners.clear();
      foregroundListeners.clear();
    },
  };
}

export type SessionController = ReturnType<typeof createSessionController>;
