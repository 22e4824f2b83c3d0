import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { mfaChallengeOf, type MfaChallenge } from '@gatehouse/sdk';
import { gatehouse, onSessionChange, TOKEN_STORAGE_KEY, type Me } from './api.ts';
import { describeError, endsSession, type ErrorView } from './errors.ts';
import { applyRememberedOrganization, loadMe } from './organization-choice.ts';
import { getPasskey } from './passkeys.ts';

type Status = 'loading' | 'signed-out' | 'signed-in';

interface SessionApi {
  status: Status;
  me: Me | null;
  /** Why the user was signed out, shown on the login page ("Your session has ended…"). */
  notice: string | null;
  /**
   * Why a stored session could not be loaded when the server or the network failed (not a
   * refusal of the session itself): the session is kept and `retry` tries again.
   */
  unavailable: ErrorView | null;
  retry(): void;
  /** Resolves to the challenge when the account has a second factor (then completeMfa), else null. */
  logIn(email: string, password: string): Promise<MfaChallenge | null>;
  /** The second step of such a login: the challenge's token and a code or a recovery code. */
  completeMfa(mfaToken: string, proof: { code: string } | { recovery_code: string }): Promise<void>;
  /** Redeems a provider sign-in's code; resolves to the challenge when the account has a second factor, else null. */
  completeProviderSignIn(code: string, codeVerifier: string): Promise<MfaChallenge | null>;
  /** Signs in with a mailed sign-in code (`gatehouse.auth.startEmailSignIn` sent it); resolves to the challenge when the account has a second factor, else null. */
  logInWithEmailCode(email: string, code: string): Promise<MfaChallenge | null>;
  /** The same with the mailed link's token (the /sign-in page). */
  logInWithEmailLink(token: string): Promise<MfaChallenge | null>;
  /** A passwordless login: the browser asks for one of the user's passkeys. */
  logInWithPasskey(): Promise<void>;
  logOut(): Promise<void>;
  /** Re-read the account (after a profile change or an email verification). */
  refreshMe(): Promise<void>;
  setNotice(notice: string | null): void;
}

const SessionContext = createContext<SessionApi | null>(null);

export function useSession(): SessionApi {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside <SessionProvider>');
  return session;
}

/** The signed-in user for every page; the SDK keeps the tokens and refreshes them. */
export function SessionProvider({ children }: { children: ComponentChildren }) {
  const [status, setStatus] = useState<Status>('loading');
  const [me, setMe] = useState<Me | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [unavailable, setUnavailable] = useState<ErrorView | null>(null);
  const statusRef = useRef<Status>('loading');
  statusRef.current = status;

  const signedOut = useCallback((why: string | null) => {
    setMe(null);
    setStatus('signed-out');
    setNotice(why);
  }, []);

  const refreshMe = useCallback(async () => {
    setMe(await loadMe());
    setStatus('signed-in');
  }, []);
  /** Just signed in (or a stored session found): in the organization chosen last. */
  const enter = useCallback(async () => {
    applyRememberedOrganization();
    await refreshMe();
  }, []);

  // Only a refused session signs out; a server or network failure keeps it and says so.
  const loadStored = useCallback(() => {
    setUnavailable(null);
    // No stored session: signed out without asking the server (no 401 in the console).
    void gatehouse.session.get().then((stored) =>
      stored ? enter().catch((error: unknown) => (endsSession(error) ? signedOut(null) : setUnavailable(describeError(error)))) : signedOut(null));
  }, []);

  useEffect(() => {
    loadStored();
    const stopListening = onSessionChange((signedIn) => {
      if (!signedIn && statusRef.current === 'signed-in') signedOut('Your session has ended. Log in again.');
    });
    // Another tab logged out, or in: follow it. (Its refreshes change the value too: nothing to do.)
    const onStorage = (event: StorageEvent) => {
      if (event.key !== TOKEN_STORAGE_KEY && event.key !== null) return;
      if (!event.newValue && statusRef.current === 'signed-in') signedOut('You logged out in another tab.');
      else if (event.newValue && statusRef.current === 'signed-out') enter().catch(() => {});
    };
    window.addEventListener('storage', onStorage);
    return () => {
      stopListening();
      window.removeEventListener('storage', onStorage);
    };
  }, []);

  /** A first sign-in step: signed in (null), or the second-factor challenge the server answered with. */
  const signedInOrChallenge = async (firstStep: () => Promise<unknown>): Promise<MfaChallenge | null> => {
    try {
      await firstStep();
    } catch (error) {
      const challenge = mfaChallengeOf(error);
      if (challenge) return challenge;
      throw error;
    }
    setNotice(null);
    await enter();
    return null;
  };

  const api = useMemo<SessionApi>(() => ({
    status, me, notice, setNotice, refreshMe, unavailable, retry: loadStored,
    logIn: (email, password) => signedInOrChallenge(() => gatehouse.auth.login({ username: email, password })),
    logInWithEmailCode: (email, code) => signedInOrChallenge(() => gatehouse.auth.verifyEmailSignIn({ email, code })),
    logInWithEmailLink: (token) => signedInOrChallenge(() => gatehouse.auth.verifyEmailSignIn({ token })),
    completeProviderSignIn: (code, codeVerifier) => signedInOrChallenge(() => gatehouse.auth.completeProviderSignIn({ code, codeVerifier })),
    async logInWithPasskey() {
      const { challenge_id, options } = await gatehouse.auth.passkeyLoginOptions();
      await gatehouse.auth.passkeyLogin({ challenge_id, credential: await getPasskey(options) });
      setNotice(null);
      await enter();
    },
    async completeMfa(mfaToken, proof) {
      await gatehouse.auth.verifyMfa({ mfa_token: mfaToken, ...proof });
      setNotice(null);
      await enter();
    },
    async logOut() {
      try {
        await gatehouse.auth.logout();
      } finally {
        signedOut('You have logged out.');
      }
    },
  }), [status, me, notice, unavailable]);

  return <SessionContext.Provider value={api}>{children}</SessionContext.Provider>;
}
