/**
 * The signed-in session: saving token pairs, handing out a fresh access token, and refreshing.
 * Refreshes are single-flight: however many calls find the token expiring (or get a 401) at once,
 * one POST /auth/refresh goes out and all of them wait for it. Sending the same refresh token
 * twice would look like theft to the server (rotation + reuse detection) and end the session.
 */
import { clientError, isGatehouseError } from './errors.js';
import type { Schemas } from './operations.js';
import { raceSignal } from './signals.js';
import type { StoredSession, TokenStore } from './token-store.js';

export type TokenResponse = Schemas['TokenResponse'];

export interface SessionManagerOptions {
  store: TokenStore;
  now: () => number;
  /** Refresh this long before the access token expires. */
  refreshMarginMs: number;
  onSessionChange?: ((session: StoredSession | null) => void) | undefined;
  /** POST /auth/refresh with this refresh token (with its own timeout: it is shared by callers). */
  exchange: (refreshToken: string) => Promise<TokenResponse>;
}

export interface SessionManager {
  get(): Promise<StoredSession | null>;
  /** Stores the pair from a login or refresh. */
  save(tokens: TokenResponse): Promise<StoredSession>;
  clear(): Promise<void>;
  /** The access token to send now (refreshed first when about to expire); null when signed out. */
  accessToken(signal: AbortSignal): Promise<string | null>;
  /** After the server refused `rejected` with 401: a newer access token, or the refresh's error. */
  refreshAfterRejection(rejected: string, signal: AbortSignal): Promise<string>;
  /** Refresh now, whatever the expiry. */
  refresh(signal: AbortSignal): Promise<StoredSession>;
}

/**
 * The server refused the refresh token itself (invalid, reused, expired, account disabled): the
 * session is over. Network failures, timeouts, 429 and 5xx say nothing about the token and keep it.
 */
function endsSession(error: unknown): boolean {
  return isGatehouseError(error) && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;
}

export function createSessionManager(options: SessionManagerOptions): SessionManager {
  const { store, now, refreshMarginMs } = options;
  let inflight: Promise<StoredSession> | null = null;

  const get = async () => (await store.get()) ?? null;
  // A listener that throws must not break the sign-in or refresh that called it: its error is
  // rethrown on its own, where the platform reports uncaught errors.
  const notify = (session: StoredSession | null) => {
    try {
      options.onSessionChange?.(session);
    } catch (error) {
      queueMicrotask(() => {
        throw error;
      });
    }
  };
  const isFresh = (session: StoredSession) => now() < session.expiresAt - refreshMarginMs;

  async function save(tokens: TokenResponse): Promise<StoredSession> {
    const session: StoredSession = {
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token,
      expiresAt: now() + tokens.expires_in * 1000,
      scope: tokens.scope,
    };
    await store.set(session);
    notify(session);
    return session;
  }

  async function clear(): Promise<void> {
    await store.clear();
    notify(null);
  }

  /** One refresh at a time; `satisfied` lets a caller take a session someone else already refreshed. */
  function refreshShared(satisfied?: (current: StoredSession) => boolean): Promise<StoredSession> {
    inflight ??= (async () => {
      const current = await get();
      if (!current) throw clientError('not_authenticated', 'No session is stored: log in first.');
      if (satisfied?.(current)) return current;
      try {
        return await save(await options.exchange(current.refreshToken));
      } catch (error) {
        // Only clear what we tried: another tab may have stored a newer session meanwhile.
        if (endsSession(error) && (await get())?.refreshToken === current.refreshToken) await clear();
        throw error;
      }
    })().finally(() => {
      inflight = null;
    });
    return inflight;
  }

  return {
    get,
    save,
    clear,

    async accessToken(signal) {
      const current = await get();
      if (!current) return null;
      if (isFresh(current)) return current.accessToken;
      try {
        return (await raceSignal(refreshShared(isFresh), signal)).accessToken;
      } catch (error) {
        // A transient failure (offline for a moment) with a token that has not expired yet:
        // use it; the server will say if it is no good, and the next call tries again.
        const transient = !endsSession(error) && !signal.aborted && !isGatehouseError(error, 'not_authenticated');
        if (transient && now() < current.expiresAt) return current.accessToken;
        throw error;
      }
    },

    async refreshAfterRejection(rejected, signal) {
      const next = await raceSignal(refreshShared((current) => current.accessToken !== rejected && isFresh(current)), signal);
      return next.accessToken;
    },

    refresh: (signal) => raceSignal(refreshShared(), signal),
  };
}
