/**
 * The biometric lock's state, apart from the session: whether the stored session is held back,
 * the token store the SDK reads through (empty while locked, so no request of the app's, the
 * hooks' or anyone's carries the session's tokens), how long the app spent in the background,
 * and the unlock prompt's progress. The session controller decides when to lock and what
 * unlocking shows; this file knows nothing of the server.
 */
import type { GatehouseError, StoredSession } from '@gatehouse/sdk';
import { askToUnlock, loadLocalAuthentication, type BiometricPromptOptions, type LocalAuthenticationLike } from './biometric-prompt.js';
import type { SessionStorage } from './storage.js';

export interface BiometricLockOptions {
  /**
   * Lock again when the app comes back after at least this long in the background. Default 300
   * (five minutes); 0 locks on every return; `Infinity` only on a cold start.
   */
  afterBackgroundSeconds?: number;
  /** Passed to `authenticateAsync` (`promptMessage`, `cancelLabel`, `disableDeviceFallback`, …). */
  prompt?: BiometricPromptOptions;
  /**
   * When the device cannot ask (no sensor, nothing enrolled, no passcode): `stay-locked` (the
   * default) keeps the session locked with a `biometric_unavailable` error, so the app offers
   * signing out and in again; `unlock` opens it without a prompt, for apps where the lock is a
   * convenience rather than a requirement.
   */
  whenUnavailable?: 'stay-locked' | 'unlock';
  /** Default: `require('expo-local-authentication')`, loaded when the provider is created. */
  localAuthentication?: LocalAuthenticationLike;
}

export interface BiometricLockState {
  /** The platform's prompt is showing. */
  unlocking: boolean;
  /** Why the last unlock did not open the session (`biometric_cancelled`, `biometric_unavailable`, `biometric_failed`); null otherwise. */
  error: GatehouseError | null;
}

export function createBiometricLock(options: BiometricLockOptions, now: () => number) {
  const limitMs = (options.afterBackgroundSeconds ?? 300) * 1000;
  if (!(limitMs >= 0)) throw new Error(`biometricLock: afterBackgroundSeconds must be 0 or more, got ${options.afterBackgroundSeconds}`);
  // Loaded now, not at the first prompt: a missing peer is the developer's to see at once.
  const localAuthentication = options.localAuthentication ?? loadLocalAuthentication();
  // Locked from the start: until the stored session has been read, nobody may use it.
  let locked = true;
  let backgroundSince: number | null = null;
  let prompting: Promise<GatehouseError | null> | null = null;
  let state: BiometricLockState = { unlocking: false, error: null };
  const listeners = new Set<() => void>();
  const set = (next: Partial<BiometricLockState>) => {
    state = { ...state, ...next };
    for (const listener of listeners) listener();
  };

  return {
    isLocked: () => locked,
    /** Hold the stored session back (a cold start, a long absence, the app's "lock now"). */
    close(): void {
      locked = true;
      set({ error: null });
    },
    /** Let it through again: after the prompt, a fresh sign-in, or with no session to protect. */
    open(): void {
      locked = false;
      if (state.error !== null) set({ error: null });
    },

    /**
     * The SDK's view of the session storage: nothing stored while locked. Writes go through: a
     * refresh sent before the lock closed must still keep its rotated tokens, and signing out
     * must still clear them.
     */
    guard(storage: SessionStorage): SessionStorage {
      return {
        get: (): Promise<StoredSession | null> | StoredSession | null => (locked ? null : storage.get()),
        set: (session) => storage.set(session),
        clear: () => storage.clear(),
        getUser: () => storage.getUser(),
        setUser: (user) => storage.setUser(user),
      };
    },

    /**
     * Follows AppState; true when the app has just come back after long enough to lock. Only
     * `background` starts the clock: iOS reports `inactive` for the app switcher, Control Center
     * and the Face ID prompt itself, none of which is leaving the app. The prompt's own trip to
     * the background (Android's PIN screen is an activity of its own on older versions) does not
     * count either, or a short limit would lock again the moment it opened. A clock that went
     * backwards (the device's time set back while away) locks too.
     */
    cameBackAfterTooLong(appState: string): boolean {
      if (appState === 'background') {
        if (prompting === null) backgroundSince ??= now();
        return false;
      }
      if (appState !== 'active' || backgroundSince === null) return false;
      const away = now() - backgroundSince;
      backgroundSince = null;
      return away < 0 || away >= limitMs;
    },

    /** Shows the prompt (once at a time: a second tap waits for the same one); null when it passed. */
    authenticate(): Promise<GatehouseError | null> {
      prompting ??= (async () => {
        set({ unlocking: true, error: null });
        const failure = await askToUnlock(localAuthentication, options.prompt ?? {}, options.whenUnavailable ?? 'stay-locked');
        set({ unlocking: false, error: failure });
        return failure;
      })().finally(() => {
        prompting = null;
      });
      return prompting;
    },

    getState: () => state,
    subscribe(listener: () => void): () => void {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

export type BiometricLock = ReturnType<typeof createBiometricLock>;
