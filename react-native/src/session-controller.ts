/**
 * The signed-in state of the app, outside React (the provider hands it to hooks through
 * useSyncExternalStore). What mobile users report most in other SDKs is what this is built around:
 * - cold start: a stored session shows at once (`signed-in`, the cached user, `isStale`) and is
 *   revalidated in the background; offline, it stays signed in;
 * - foreground: one refresh when the access token is expired or close to it, shared by every
 *   caller (the SDK's refresh is single-flight, so reuse detection never fires on a race);
 * - sign-out only on a terminal answer (the refresh token refused, the account gone or
 *   disabled); network errors and 5xx keep the session and are retried with backoff;
 * - with a biometric lock (biometric-lock.ts), a stored session starts `locked` and locks again
 *   after a long absence: no user shown, no request with its tokens, until unlock() passes.
 */
import { isGatehouseError, type Gatehouse, type RequestBody } from '@gatehouse/sdk';
import { backoffMs, type BackoffOptions } from './backoff.js';
import type { BiometricLock } from './biometric-lock.js';
import { logInWithPasskey, type PasskeyAuthenticator } from './passkeys.js';
import { authorizeWithProvider, type ProviderSignInOptions } from './provider-sign-in.js';
import type { SessionStorage, User } from './storage.js';

/** `locked`: a session is stored but held back until the biometric lock's unlock() passes (never without `biometricLock`). */
export type SessionStatus = 'loading' | 'locked' | 'signed-in' | 'signed-out';

export interface SessionSnapshot {
  status: SessionStatus;
  /** The signed-in user: cached at first, then as the server last answered. Null while unknown or locked. */
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
  /** The biometric lock, when the app has one; the client must read its tokens through `lock.guard(storage)`. */
  lock?: BiometricLock | undefined;
}

/** The server refused the session itself: nothing but signing in again can help. */
export function isTerminal(error: unknown): boolean {
  if (!isGatehouseError(error)) return false;
  return error.status === 401 || error.code === 'not_authenticated' || error.code === 'account_disabled';
}

export function createSessionController({ client, storage, appState, retry, lock }: SessionControllerOptions) {
  let snapshot: SessionSnapshot = { status: 'loading', user: null, isStale: true, error: null };
  const listeners = new Set<() => void>();
  const foregroundListeners = new Set<() => void>();
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let attempt = 0;
  let revalidating: Promise<void> | null = null;
  let disposed = false;
  let subscription: { remove(): void } | undefined;
  // Bumped by every sign-in and sign-out: an answer to a request made before it belongs to another
  // session and is dropped (a late revalidation must not bring back a user who signed out).
  let epoch = 0;

  const set = (next: Partial<SessionSnapshot>) => {
    snapshot = { ...snapshot, ...next };
    for (const listener of listeners) listener();
  };
  const cancelRetry = () => {
    if (retryTimer !== undefined) clearTimeout(retryTimer);
    retryTimer = undefined;
  };

  async function signedOut(): Promise<void> {
    epoch++;
    cancelRetry();
    attempt = 0;
    // Storage failing (a Keychain that cannot be read after a restore) must not keep the user in.
    await Promise.resolve(storage.setUser(null)).catch(() => {});
    lock?.open(); // nothing left to protect, and the next sign-in must reach its own session
    if (snapshot.status !== 'signed-out' || snapshot.user !== null) set({ status: 'signed-out', user: null, isStale: false, error: null });
  }

  /** A refusal of the session ends it; anything else keeps it and tries again later. */
  async function failed(error: unknown, since: number, again: () => void): Promise<void> {
    if (since !== epoch) return; // about a session that has since ended or been replaced
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
    // Locked (or not yet known to be unlocked), the client sees no session: asking would sign the user out.
    if (lock?.isLocked()) return Promise.resolve();
    const current = (revalidating ??= (async () => {
      const since = epoch;
      if (!(await client.session.get())) {
        if (since === epoch) await signedOut();
        return;
      }
      try {
        const user = await client.me.get();
        if (since !== epoch) return;
        await storage.setUser(user);
        attempt = 0;
        cancelRetry();
        set({ status: 'signed-in', user, isStale: false, error: null });
      } catch (error) {
        await failed(error, since, () => void revalidate());
      }
    })().finally(() => {
      // Only its own: locking drops a revalidation in flight, and unlocking starts a new one.
      if (revalidating === current) revalidating = null;
    }));
    return current;
  }

  /** Back in the foreground: refresh now if the token is due, so the next calls need not wait. */
  async function refreshIfDue(): Promise<void> {
    if (snapshot.status !== 'signed-in') return;
    const since = epoch;
    try {
      await client.session.accessToken();
      attempt = 0;
      if (since === epoch && (snapshot.error !== null || snapshot.isStale)) void revalidate();
    } catch (error) {
      await failed(error, since, () => void refreshIfDue());
    }
  }

  async function signIn(email: string, password: string): Promise<User> {
    epoch++;
    await client.auth.login({ username: email, password });
    return adoptNewSession();
  }

  /**
   * The second half of a sign-in on an account with a second factor: signIn rejected with 403
   * `mfa_required` (read its token with `mfaChallengeOf(error)`); this proves a code or a
   * recovery code and signs in.
   */
  async function verifyMfa(mfaToken: string, proof: { code: string } | { recovery_code: string }): Promise<User> {
    epoch++;
    await client.auth.verifyMfa({ mfa_token: mfaToken, ...proof });
    return adoptNewSession();
  }

  /**
   * Signs in with a provider in a browser session. Like signIn, rejects with 403 `mfa_required`
   * on an account with a second factor (then verifyMfa), and with `access_denied` when the person
   * closed the browser.
   */
  async function signInWithProvider(providerId: string, options: ProviderSignInOptions): Promise<User> {
    const { code, codeVerifier } = await authorizeWithProvider(client, providerId, options);
    epoch++;
    await client.auth.completeProviderSignIn({ code, codeVerifier });
    return adoptNewSession();
  }

  /** Signs in with one of the account's passkeys (the platform's sheet); rejects with `aborted` when it was closed. */
  async function signInWithPasskey(options: { passkeys?: PasskeyAuthenticator } = {}): Promise<User> {
    epoch++;
    await logInWithPasskey(client, options.passkeys);
    return adoptNewSession();
  }

  /**
   * Signs in with the 6-digit code of a mailed sign-in (`client.auth.startEmailSignIn` sent it).
   * Like signIn, rejects with 403 `mfa_required` on an account with a second factor.
   */
  async function signInWithEmailCode(email: string, code: string): Promise<User> {
    epoch++;
    await client.auth.verifyEmailSignIn({ email, code });
    return adoptNewSession();
  }

  /** The same with the mailed link's token (handleAuthLink calls it for a sign-in link). */
  async function signInWithEmailLink(token: string): Promise<User> {
    epoch++;
    await client.auth.verifyEmailSignIn({ token });
    return adoptNewSession();
  }

  /**
   * Signs in with the ID token a platform's native sheet returned (Sign in with Apple, Google's),
   * with the raw nonce of `createSignInNonce()` when the sheet was given one. Rejects like signIn.
   */
  async function signInWithIdToken(input: { provider: string; idToken: string; nonce?: string; name?: string }): Promise<User> {
    epoch++;
    await client.auth.signInWithIdToken({
      provider: input.provider, id_token: input.idToken,
      ...(input.nonce === undefined ? {} : { nonce: input.nonce }), ...(input.name ? { name: input.name } : {}),
    });
    return adoptNewSession();
  }

  /**
   * Signs in as a new guest (the server's ANONYMOUS_SIGN_IN): the app works at once, and the
   * person upgrades later (upgradeGuest) keeping everything. `user.is_anonymous` says which.
   */
  async function signInAsGuest(): Promise<User> {
    epoch++;
    await client.auth.signInAnonymously();
    return adoptNewSession();
  }

  /**
   * The guest becomes an ordinary account with the same id and data: an address (confirmed by
   * mail), and optionally a password and a name. The session goes on; the user shows the change.
   */
  async function upgradeGuest(input: { email: string; password?: string; name?: string }): Promise<User> {
    const since = epoch;
    await client.me.upgrade({ email: input.email, ...(input.password ? { password: input.password } : {}), ...(input.name ? { name: input.name } : {}) });
    const user = await client.me.get();
    if (since !== epoch) return user; // signed out or in as someone else meanwhile
    await storage.setUser(user);
    set({ status: 'signed-in', user, isStale: false, error: null });
    return user;
  }

  /** The SDK holds a new session: load its user and show it. */
  async function adoptNewSession(): Promise<User> {
    // The person has just proved who they are: a fresh sign-in is never locked.
    lock?.open();
    let user: User;
    try {
      user = await client.me.get();
    } catch (error) {
      // Signed in on the server but not here: leave nothing behind for the next start to find.
      await client.session.clear();
      throw error;
    }
    await storage.setUser(user);
    attempt = 0;
    cancelRetry();
    set({ status: 'signed-in', user, isStale: false, error: null });
    return user;
  }

  /** Hold the session back: its user hidden, nothing in flight for it shown, no retries. */
  function lockNow(): void {
    if (!lock || snapshot.status !== 'signed-in') return;
    epoch++;
    cancelRetry();
    attempt = 0;
    revalidating = null;
    lock.close();
    set({ status: 'locked', user: null, isStale: true, error: null });
  }

  /**
   * Shows the platform's prompt; on success the session opens as on a cold start (the cached
   * user, then a revalidation, with a refresh when the token expired meanwhile). Resolves whether
   * the session is open; the lock's state says why not.
   */
  async function unlock(): Promise<boolean> {
    const signedIn = () => snapshot.status === 'signed-in';
    if (!lock || snapshot.status !== 'locked') return signedIn();
    const since = epoch;
    const failure = await lock.authenticate();
    if (since !== epoch) return signedIn(); // signed out, or in, meanwhile
    if (failure) return false;
    const user = await Promise.resolve(storage.getUser()).catch(() => null);
    if (since !== epoch || !lock.isLocked()) return signedIn(); // a second tap's unlock() got here first
    lock.open();
    set({ status: 'signed-in', user, isStale: true, error: null });
    void revalidate();
    return true;
  }

  function onAppState(state: string): void {
    if (lock?.cameBackAfterTooLong(state)) lockNow();
    // Locked, nothing reloads (the hooks' listeners may not have heard of the lock yet).
    if (state !== 'active' || snapshot.status === 'locked') return;
    void refreshIfDue();
    for (const listener of foregroundListeners) listener();
  }

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

    /**
     * Cold start: show the stored session at once, then confirm it in the background. Also after
     * `dispose()` (React's StrictMode and Fast Refresh run an effect's cleanup and then the effect
     * again): it listens to AppState anew.
     */
    async start(): Promise<void> {
      disposed = false;
      subscription ??= appState?.addEventListener('change', onAppState);
      const since = epoch;
      try {
        // The storage itself, not the client's view of it: that is empty while locked.
        const stored = await storage.get();
        if (since !== epoch) return; // signed in or out meanwhile
        if (!stored) return await signedOut();
        if (lock?.isLocked()) return set({ status: 'locked', user: null, isStale: true, error: null });
        set({ status: 'signed-in', user: await storage.getUser(), isStale: true });
      } catch {
        // Storage that cannot be read: start signed out rather than loading forever.
        await Promise.resolve(client.session.clear()).catch(() => {});
        return signedOut();
      }
      void revalidate();
    },

    /** The SDK cleared the session (a refused refresh, a logout, another client): follow it. */
    sessionCleared: () => void signedOut(),

    revalidate,

    unlock,

    /** Lock now (a "Lock" button); a no-op without a lock or a signed-in session. */
    lock: lockNow,

    /** The lock's own state (the prompt showing, the last failure), for useBiometricLock; null without a lock. */
    biometricLock: lock ?? null,

    signIn,

    signInWithProvider,

    signInWithPasskey,

    signInWithEmailCode,

    signInWithEmailLink,

    signInWithIdToken,

    signInAsGuest,

    upgradeGuest,

    verifyMfa,

    /** Creates the account, then signs in to it. */
    async signUp(input: RequestBody<'register'>): Promise<User> {
      await client.auth.register(input);
      return signIn(input.email, input.password);
    },

    /** Ends the session on the server when it can; locally always. Also while locked. */
    async signOut(): Promise<void> {
      epoch++;
      // Locked, the client would not find the tokens to end the session on the server with; the
      // status stays `locked` (nothing shown, no hook loading) until the session is gone.
      lock?.open();
      try {
        await client.auth.logout();
      } catch {
        // Offline or refused: the SDK has cleared the tokens anyway, so the user is signed out here.
      }
      await signedOut();
    },

    /** Stops retries and foreground listening; `start()` may follow (StrictMode). */
    dispose(): void {
      disposed = true;
      cancelRetry();
      subscription?.remove();
      subscription = undefined;
    },
  };
}

export type SessionController = ReturnType<typeof createSessionController>;
