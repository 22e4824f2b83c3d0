/** Public auth operations, plus logout; login and refresh keep the token store up to date. */
import type { Call, RequestOptions } from '../core.js';
import { isGatehouseError } from '../errors.js';
import type { RequestBody, Success } from '../operations.js';
import { startProviderSignIn, type ProviderSignInOptions, type ProviderSignInStart } from '../provider-sign-in.js';
import type { SessionManager } from '../session.js';
import { createDeadline } from '../signals.js';
import type { StoredSession } from '../token-store.js';

export function authResource(call: Call, sessions: SessionManager, defaultTimeoutMs: number, baseUrl: string) {
  return {
    /**
     * For the platform's own services, with a client made with a service key (scope
     * credentials:verify): whether `credential` (an API key or access token someone sent you)
     * may make a call, whose it is, its scopes and its budget. Resolves whatever the answer is:
     * check `valid` and `code` (not_found, revoked, expired, disabled, insufficient_scope,
     * rate_limited, usage_exceeded). By default the check spends from that credential's budget
     * like a request would (`cost`, default 1); `count: false` only looks.
     */
    verifyCredential: (credential: string, check: Omit<RequestBody<'verifyCredential'>, 'credential'> = {}, options?: RequestOptions) =>
      call('verifyCredential', { body: { ...check, credential } }, options),

    /** Creates an account (does not sign in: call login next). */
    register: (body: RequestBody<'register'>, options?: RequestOptions) => call('register', { body }, options),

    /**
     * Exchanges email (`username`) and password for tokens and stores the session. On an account
     * with a second factor it rejects with 403 `mfa_required`: take the token with
     * `mfaChallengeOf(error)` and finish with verifyMfa().
     */
    async login(body: RequestBody<'login'>, options?: RequestOptions): Promise<Success<'login'>> {
      const tokens = await call('login', { body }, options);
      await sessions.save(tokens);
      return tokens;
    },

    /** The second half of a login: the `mfa_token` and a `code` or `recovery_code`; stores the session. */
    async verifyMfa(body: RequestBody<'verifyMfa'>, options?: RequestOptions): Promise<Success<'verifyMfa'>> {
      const tokens = await call('verifyMfa', { body }, options);
      await sessions.save(tokens);
      return tokens;
    },

    /** Step one of a passwordless login: `{ challenge_id, options }` for `navigator.credentials.get()`. */
    passkeyLoginOptions: (options?: RequestOptions) => call('passkeyLoginOptions', {}, options),

    /** Step two: `{ challenge_id, credential: credential.toJSON() }`; stores the session. */
    async passkeyLogin(body: RequestBody<'passkeyLogin'>, options?: RequestOptions): Promise<Success<'passkeyLogin'>> {
      const tokens = await call('passkeyLogin', { body }, options);
      await sessions.save(tokens);
      return tokens;
    },

    /**
     * Step one of signing in by mail: mails a 6-digit code and a single-use link (10 minutes).
     * Always 202, whether or not the address has an account; `create_account: false` mails only
     * addresses that have one.
     */
    startEmailSignIn: (body: RequestBody<'startPasswordless'>, options?: RequestOptions) => call('startPasswordless', { body }, options),

    /**
     * Step two: `{ email, code }` (typed) or `{ token }` (the mailed link's); stores the session.
     * On an account with a second factor it rejects with 403 `mfa_required` (then
     * `mfaChallengeOf(error)` and verifyMfa()).
     */
    async verifyEmailSignIn(body: RequestBody<'verifyPasswordless'>, options?: RequestOptions): Promise<Success<'verifyPasswordless'>> {
      const tokens = await call('verifyPasswordless', { body }, options);
      await sessions.save(tokens);
      return tokens;
    },

    /** The sign-in providers configured on the server (`{ id, name, type }`), for buttons. */
    providers: (options?: RequestOptions) => call('listSignInProviders', {}, options),

    /**
     * Step one of signing in with a provider: the URL to open in the browser and the PKCE verifier
     * to keep until it comes back to `redirectUri` (see provider-sign-in.ts).
     */
    providerSignIn: (providerId: string, options: ProviderSignInOptions): Promise<ProviderSignInStart> => startProviderSignIn(baseUrl, providerId, options),

    /**
     * Step two: the code from the redirect URI (`providerCallbackOf(url)`) and the kept verifier;
     * stores the session. On an account with a second factor it rejects with 403 `mfa_required`
     * (then `mfaChallengeOf(error)` and verifyMfa()).
     */
    async completeProviderSignIn(input: { code: string; codeVerifier: string }, options?: RequestOptions): Promise<Success<'exchangeProviderCode'>> {
      const tokens = await call('exchangeProviderCode', { body: { code: input.code, code_verifier: input.codeVerifier } }, options);
      await sessions.save(tokens);
      return tokens;
    },

    /**
     * Signs in as a new guest (the server's ANONYMOUS_SIGN_IN): an account without an address that
     * uses the platform until it upgrades (`me.upgrade`); stores the session.
     */
    async signInAnonymously(options?: RequestOptions): Promise<Success<'signInAnonymously'>> {
      const tokens = await call('signInAnonymously', { body: {} }, options);
      await sessions.save(tokens);
      return tokens;
    },

    /**
     * Signs in with the ID token a platform's native sign-in returned (Sign in with Apple's
     * `identityToken`, Google's `idToken`): `{ provider, id_token, nonce?, name? }`. Pass the raw
     * nonce you made for the sheet (Apple's takes its SHA-256; either form is checked). Stores the
     * session; on an account with a second factor it rejects with 403 `mfa_required`.
     */
    async signInWithIdToken(body: RequestBody<'signInWithIdToken'>, options?: RequestOptions): Promise<Success<'signInWithIdToken'>> {
      const tokens = await call('signInWithIdToken', { body }, options);
      await sessions.save(tokens);
      return tokens;
    },

    /**
     * Rotates the stored refresh token now (the SDK also does this by itself before expiry and
     * after a 401). If the server refuses the token (reused, revoked, expired) the store is cleared.
     */
    async refresh(options: Pick<RequestOptions, 'signal' | 'timeoutMs'> = {}): Promise<StoredSession> {
      const deadline = createDeadline({ signal: options.signal, timeoutMs: options.timeoutMs ?? defaultTimeoutMs });
      try {
        return await sessions.refresh(deadline.signal);
      } finally {
        deadline.dispose();
      }
    },

    /**
     * Signs out. `scope`: `current` (the default) ends this session and clears the store (also
     * when the server says it had already ended); `all` ends every session of the account and
     * clears the store; `others` ends every other session ("sign out everywhere else") and keeps
     * this one.
     */
    async logout(body: RequestBody<'logout'> = {}, options?: RequestOptions): Promise<void> {
      if (body.scope === 'others') {
        await call('logout', { body }, options);
        return;
      }
      try {
        await call('logout', { body }, options);
      } catch (error) {
        if (!isGatehouseError(error) || (error.status !== 401 && error.code !== 'not_authenticated')) throw error;
      } finally {
        await sessions.clear();
      }
    },

    /** Always 202, whether or not the address has an account. */
    forgotPassword: (body: RequestBody<'forgotPassword'>, options?: RequestOptions) => call('forgotPassword', { body }, options),
    /** Sets a new password with the mailed token; signs out every session of the account. */
    resetPassword: (body: RequestBody<'resetPassword'>, options?: RequestOptions) => call('resetPassword', { body }, options),
    /**
     * Confirms an address with the mailed token: the account's own, or the new one of a change of
     * email (me.changeEmail). Sends the stored session when there is one: a change's link is
     * confirmed only by the account's owner signed in (signed out: 401 `authentication_required`,
     * another account: 403 `forbidden`; the link stays usable).
     */
    verifyEmail: (body: RequestBody<'verifyEmail'>, options?: RequestOptions) => call('verifyEmail', { body }, options),
  };
}
