import { createHash, timingSafeEqual } from 'node:crypto';
import * as oidc from 'openid-client';
import type { ClientInfo } from '../../kernel/client-info.js';
import { isEmailAddress, normalizeEmail } from '../../kernel/email-address.js';
import { AppError, fieldError } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { NAME_MAX } from '../../kernel/names.js';
import { isoTime, type Clock } from '../../kernel/clock.js';
import { isUniqueViolation } from '../../kernel/db/errors.js';
import type { DialectName } from '../../kernel/db/database.js';
import type { Database } from '../../kernel/db/schema.js';
import { assertKeepsASignInMethod } from '../users/sign-in-methods.js';
import type { Kysely } from 'kysely';
import { assertMaySignIn } from '../auth/sign-in-rules.js';
import { recordEvent, type RecordedEvent } from '../../kernel/events/event-outbox.js';
import type { OnEventsCommitted } from '../../kernel/events/event-signal.js';
import type { MfaService } from '../mfa/mfa.service.js';
import type { SecurityLog } from '../security-log/security-log.js';
import type { SessionsService, TokenResponse } from '../sessions/sessions.service.js';
import { newOpaqueToken, sha256Hex } from '../../kernel/opaque-tokens.js';
import { createUsersRepository, newUserRow, NO_PASSWORD, type UserRow, type UsersRepository } from '../users/users.repository.js';
import { createIdentitiesRepository, type IdentitiesRepository, type IdentityRow, type OidcCodeRow } from './identities.repository.js';
import { IdTokenRefused, type ProviderClaims, type ProviderClient } from './provider-clients.js';
import type { RestoreOnSignIn } from '../users/restore-on-sign-in.js';
import type { Guests } from '../guests/guests.service.js';
import type { AccountCache } from '../users/account-cache.js';
import type { CreatePersonalOrganization } from '../users/users.repository.js';

/** How long a person may take at the provider (login, consent) before the callback. */
export const FLOW_TTL_S = 600;
/** How long the app has to redeem the one-time code it was sent back with. */
export const CODE_TTL_S = 120;
const CODE_PREFIX = 'gthc_';
const SUBJECT_MAX = 255;
const CONTROL = /[\p{Cc}\p{Cf}]/u;
const withoutControl = (text: string) => text.replace(/[\p{Cc}\p{Cf}]/gu, '');

export interface IdentitiesServiceDeps {
  /** A guest that signs in with a provider becomes that provider's account (guests/). */
  guests: Pick<Guests, 'upgradeRow'>;
  accounts: Pick<AccountCache, 'changed'>;
  /** Makes a new account's personal organization in its transaction (access implements it). */
  createPersonalOrganization: CreatePersonalOrganization;
  repo: IdentitiesRepository;
  providers: Map<string, ProviderClient>;
  users: Pick<UsersRepository, 'findById' | 'findByEmail'>;
  sessions: SessionsService;
  mfa: Pick<MfaService, 'isEnabled' | 'challenge'>;
  securityLog: SecurityLog;
  clock: Clock;
  /** Where a finished sign-in may send its code (redirect-uris.ts). */
  isAllowedRedirect: (uri: string) => boolean;
  requireEmailVerification: boolean;
  /** The password, or on an account without one a recent sign-in (users service: throttled, a field error when wrong). */
  confirmOwner: (userId: string, sessionId: string, password: string | undefined, field: string) => Promise<void>;
  dialect: DialectName;
  onEvent?: OnEventsCommitted;
  notify?: (user: { email: string; name: string }, change: string) => void;
  /** Why a provider's answer was refused: for operators, never for the client. */
  warn?: (detail: Record<string, unknown>, message: string) => void;
  /** An account scheduled for deletion is restored by signing in (flows/account-deletion.ts). */
  restoreAccount: RestoreOnSignIn;
}

export function presentIdentity(row: IdentityRow, providers: Map<string, ProviderClient>) {
  return {
    id: row.id, provider: row.provider, provider_name: providers.get(row.provider)?.name ?? row.provider,
    email: row.email, created_at: row.created_at, last_used_at: row.last_used_at,
  };
}

/** S256 (RFC 7636): base64url(SHA-256(verifier)), compared in constant time. */
function verifierMatches(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

/** A provider's display name, made fit for an account (no control characters, at most NAME_MAX). */
function accountName(claims: { name: string | null }, email: string): string {
  const cleaned = [...withoutControl(claims.name ?? '').trim()].slice(0, NAME_MAX).join('').trim();
  return cleaned || email.split('@')[0]!.slice(0, NAME_MAX) || 'User';
}

/**
 * What a provider proved about a person, in the shape a code row stores it: by the browser flow's
 * callback (kept behind the one-time code), or by a native app's ID token (used at once).
 */
export type ProvenIdentity = Pick<OidcCodeRow, 'provider' | 'subject' | 'email' | 'email_verified' | 'name'>;

/**
 * A provider's claims made fit to keep: the subject must fit and be plain text (else null: the
 * answer cannot be used); an address obeys registration's rule (plain ASCII, no look-alike
 * folding) or counts as none; control characters leave the name.
 */
function provenFrom(providerId: string, claims: ProviderClaims): ProvenIdentity | null {
  if (!claims.subject || claims.subject.length > SUBJECT_MAX || CONTROL.test(claims.subject)) return null;
  const address = claims.email?.trim() ?? '';
  const email = isEmailAddress(address) ? address : null;
  return {
    provider: providerId, subject: claims.subject, email, email_verified: email && claims.emailVerified ? 1 : 0,
    name: claims.name ? [...withoutControl(claims.name)].slice(0, 200).join('') || null : null,
  };
}

function appendQuery(uri: string, params: Record<string, string | null>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) if (value !== null) url.searchParams.set(name, value);
  return url.toString();
}

/**
 * Sign-in with OpenID Connect and OAuth 2 providers, for web and mobile alike:
 * 1. `authorize`: the app's browser comes here with its redirect URI and PKCE challenge; Gatehouse
 *    remembers them under a new `state` and sends the browser to the provider (its own PKCE,
 *    `state` and `nonce`).
 * 2. `callback`: the provider sends the browser back; Gatehouse redeems the provider's code and
 *    verifies the answer, then sends the browser to the app's redirect URI with a one-time code.
 * 3. `signIn` / `link`: the app redeems that code with its PKCE verifier, for tokens (or the
 *    second-factor challenge) or to link the identity to the signed-in account.
 * Whoever intercepts a code (another app on the same URL scheme, a log) lacks the verifier.
 */
export function createIdentitiesService(deps: IdentitiesServiceDeps) {
  const { repo, providers, clock } = deps;
  const now = () => isoTime(clock.now());

  function provider(id: string): ProviderClient {
    const client = providers.get(id);
    if (!client) throw new AppError('not_found', `No sign-in provider "${id}" is configured here.`);
    return client;
  }

  async function publish(trx: Kysely<Database>, userId: string, type: 'user.identity.linked' | 'user.identity.unlinked', row: IdentityRow): Promise<RecordedEvent> {
    return recordEvent(trx, clock, { userId, type, data: { user_id: userId, identity_id: row.id, provider: row.provider } });
  }

  async function afterLink(user: UserRow, row: IdentityRow, client: ClientInfo, recorded: RecordedEvent): Promise<void> {
    deps.onEvent?.(recorded);
    await deps.securityLog.record(user.id, 'identity_linked', client, { identity_id: row.id, provider: row.provider });
    deps.notify?.(user, `Sign-in with ${provider(row.provider).name} was linked`);
  }

  function newIdentity(userId: string, code: ProvenIdentity): IdentityRow {
    const nowIso = now();
    return { id: newId('identity'), user_id: userId, provider: code.provider, subject: code.subject, email: code.email, created_at: nowIso, last_used_at: nowIso };
  }

  /** The code's row, once, if the verifier is the one its challenge was made from. */
  async function redeemCode(input: { code: string; code_verifier: string }): Promise<OidcCodeRow> {
    const invalid = new AppError('invalid_token', 'The sign-in code is not valid, was used already or has expired: sign in again.');
    if (!input.code.startsWith(CODE_PREFIX) || input.code.length > 100) throw invalid;
    // Taken before the verifier is checked: whoever holds a stolen code gets one guess, not many.
    const row = await repo.takeCode(sha256Hex(input.code), now());
    if (!row || !verifierMatches(input.code_verifier, row.code_challenge)) throw invalid;
    return row;
  }

  /**
   * The account a provider's sign-in stands for: the one the identity is linked to; else the
   * account with that verified email (`link`: the caller links it once the sign-in is complete,
   * after the second factor if the account has one); else a new account. Never by an unverified
   * email on either side: that would hand an account to whoever registered the address first.
   */
  async function accountFor(code: ProvenIdentity, client: ClientInfo): Promise<{ user: UserRow; link?: IdentityRow }> {
    const linked = await repo.find(code.provider, code.subject);
    if (linked) {
      await repo.recordUse(linked.id, code.email, now());
      const user = await deps.users.findById(linked.user_id);
      if (!user) throw new AppError('invalid_token', 'The account behind this sign-in no longer exists.');
      return { user };
    }
    const name = provider(code.provider).name;
    if (!code.email || code.email_verified !== 1) {
      throw new AppError('email_not_verified', `${name} did not confirm an email address for you: confirm one there, or sign up with a password.`);
    }
    const existing = await deps.users.findByEmail(code.email);
    if (existing) {
      // Linked by email only where both sides verified the address, the provider is trusted to
      // (link_by_email), the account's stored address is this very address (a row stored before
      // addresses were checked may hold a look-alike folded onto it), and the account is no
      // admin's: anything else is linked from that account's settings.
      const sameAddress = isEmailAddress(existing.email) && normalizeEmail(existing.email) === normalizeEmail(code.email);
      const linkable = existing.email_verified === 1 && provider(code.provider).linkByEmail && sameAddress && existing.role !== 'admin' && existing.disabled !== 1;
      if (!linkable) {
        throw new AppError('email_taken', `An account with this email exists already. To sign in to it with ${name}, log in to it and link ${name} in Settings → Security.`);
      }
      // Linked by the caller once the sign-in is complete (after the second factor, if any).
      return { user: existing, link: newIdentity(existing.id, code) };
    }
    // A provider not trusted for addresses (link_by_email false: its users set their own) proves
    // none: the account holds it unconfirmed, and its owner's registration or mailed reset takes
    // it back (accounts/unproven-address.ts).
    const user = newUserRow({ id: newId('user'), email: code.email, name: accountName(code, code.email), passwordHash: NO_PASSWORD, emailVerified: provider(code.provider).linkByEmail, nowIso: now() });
    const row = newIdentity(user.id, code);
    const recorded = await repo.db.transaction().execute(async (trx) => {
      await createUsersRepository(trx).insert(user, deps.createPersonalOrganization);
      await createIdentitiesRepository(trx).insert(row);
      return publish(trx, user.id, 'user.identity.linked', row);
    });
    deps.onEvent?.(recorded);
    await deps.securityLog.record(user.id, 'identity_linked', client, { identity_id: row.id, provider: row.provider });
    return { user };
  }

  /** Links an identity found by email, with its event, log line and mail; a racing sign-in that linked it first wins. */
  async function linkByEmail(user: UserRow, row: IdentityRow, client: ClientInfo): Promise<void> {
    let recorded: RecordedEvent;
    try {
      recorded = await repo.db.transaction().execute(async (trx) => {
        await createIdentitiesRepository(trx).insert(row);
        return publish(trx, user.id, 'user.identity.linked', row);
      });
    } catch (error) {
      if (isUniqueViolation(error)) return;
      throw error;
    }
    await afterLink(user, row, client, recorded);
  }

  /**
   * The sign-in a provider proved (by the browser flow's code or a native ID token): the account,
   * its second factor, then the session. `method` is for the security log; the session's amr is
   * `oidc` either way (a provider vouched for the person).
   */
  async function signInAs(code: ProvenIdentity, client: ClientInfo, method: 'oidc' | 'id_token', guestId?: string): Promise<TokenResponse> {
    // Only a guest's token changes what a sign-in does; a client signed in as an ordinary account
    // sends its session too (the SDK does), and signs in as this identity's account as if signed out.
    if (guestId !== undefined && (await deps.users.findById(guestId))?.is_anonymous === 1) return upgradeGuest(guestId, code, client, method);
    let found: Awaited<ReturnType<typeof accountFor>>;
    try {
      found = await accountFor(code, client);
    } catch (error) {
      // Two first sign-ins of one person raced: the other made the account; this one uses it.
      if (!isUniqueViolation(error)) throw error;
      found = await accountFor(code, client);
    }
    const { user, link } = found;
    assertMaySignIn(user, deps.requireEmailVerification);
    // A new way in is added only with the whole sign-in: behind a second factor, the identity
    // waits on the challenge's row and is linked (and the owner mailed) when the factor is proved.
    if (await deps.mfa.isEnabled(user.id)) throw await deps.mfa.challenge(user.id, ['oidc'], link ? { pendingLink: JSON.stringify(link) } : {});
    if (link) await linkByEmail(user, link, client);
    await deps.restoreAccount(user, client);
    const tokens = await deps.sessions.start(user.id, client, { amr: ['oidc'], factorProved: false });
    await deps.securityLog.record(user.id, 'sign_in', client, { method, provider: code.provider });
    return tokens;
  }

  /**
   * A guest signing in with a provider (its access token on the request) becomes that provider's
   * account: the identity is linked to it, and it takes the provider's verified address, keeping
   * its id and all it made. Only for an identity no account holds yet and an address no account
   * uses: otherwise the person has an account already (409; signing in without the guest's token
   * reaches it, and the guest's work stays with the guest).
   */
  async function upgradeGuest(guestId: string, code: ProvenIdentity, client: ClientInfo, method: 'oidc' | 'id_token'): Promise<TokenResponse> {
    const name = provider(code.provider).name;
    if (await repo.find(code.provider, code.subject)) {
      throw new AppError('conflict', `This ${name} account has a Gatehouse account of its own: sign in to it without the guest's session (the guest keeps what it made).`);
    }
    if (!code.email || code.email_verified !== 1) {
      throw new AppError('email_not_verified', `${name} did not confirm an email address for you: upgrade the guest with an address instead.`);
    }
    const row = newIdentity(guestId, code);
    let recorded: RecordedEvent;
    try {
      recorded = await repo.db.transaction().execute(async (trx) => {
        const upgraded = await deps.guests.upgradeRow(trx, guestId, {
          email: code.email!, emailVerified: provider(code.provider).linkByEmail, passwordHash: NO_PASSWORD, name: code.name ? accountName(code, code.email!) : undefined,
        });
        if (!upgraded) throw new AppError('conflict', 'This account is no guest any more: sign in again.');
        await createIdentitiesRepository(trx).insert(row);
        return publish(trx, guestId, 'user.identity.linked', row);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('email_taken', `An account with this email exists already: sign in to it with ${name} without the guest's session.`);
      throw error;
    }
    deps.onEvent?.(recorded);
    await deps.accounts.changed(guestId);
    await deps.securityLog.record(guestId, 'identity_linked', client, { identity_id: row.id, provider: row.provider });
    await deps.securityLog.record(guestId, 'guest_upgraded', client, { method });
    const tokens = await deps.sessions.start(guestId, client, { amr: ['oidc'], factorProved: false });
    await deps.securityLog.record(guestId, 'sign_in', client, { method, provider: code.provider });
    return tokens;
  }

  return {
    list: async (userId: string) => (await repo.listForUser(userId)).map((row) => presentIdentity(row, providers)),

    providers: () => [...providers.values()].map((p) => ({ id: p.id, name: p.name, type: p.type, web: p.webSignIn, native: p.nativeSignIn })),

    /** Step 1: remember the app's side, and the URL of the provider's sign-in page. */
    async authorize(providerId: string, input: { redirect_uri: string; code_challenge: string; code_challenge_method: string; state?: string | undefined }): Promise<string> {
      const client = provider(providerId);
      if (!client.webSignIn) throw new AppError('not_found', `${client.name} sign-in is configured here for native apps only (ID tokens at POST /v1/auth/id-token).`);
      if (!deps.isAllowedRedirect(input.redirect_uri)) {
        throw fieldError('/redirect_uri', 'not_allowed', "redirect_uri must be this server's /oidc-callback, one of OIDC_REDIRECT_URIS, or under APP_LINK_URL, in normal form.");
      }
      const checks = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier() };
      let url: URL;
      try {
        url = await client.authorizationUrl(checks);
      } catch (error) {
        deps.warn?.({ provider: providerId, err: error }, 'sign-in provider unreachable');
        throw new AppError('service_unavailable', `${client.name} cannot be reached right now; try again in a minute.`, { headers: { 'Retry-After': '60' } });
      }
      const createdMs = clock.now();
      await repo.insertFlow({
        state_hash: sha256Hex(checks.state), provider: providerId, nonce: checks.nonce, provider_verifier: checks.verifier,
        redirect_uri: input.redirect_uri, code_challenge: input.code_challenge, client_state: input.state ?? null,
        created_at: isoTime(createdMs), expires_at: isoTime(createdMs + FLOW_TTL_S * 1000),
      });
      return url.toString();
    },

    /**
     * Step 2: the provider's answer. Returns where to send the browser: the app's redirect URI with
     * `code` (or `error`). An unknown, used or expired `state` has nowhere safe to go: 400.
     */
    async callback(providerId: string, params: URLSearchParams): Promise<string> {
      const client = provider(providerId);
      const state = params.get('state');
      const flow = state && state.length <= 200 ? await repo.takeFlow(sha256Hex(state), now()) : undefined;
      if (!flow || flow.provider !== providerId) {
        throw new AppError('invalid_request', 'This sign-in is unknown, was finished already or has expired: start it again from the app.');
      }
      const back = (query: Record<string, string | null>) => appendQuery(flow.redirect_uri, { ...query, state: flow.client_state });
      if (params.get('error')) {
        const denied = params.get('error') === 'access_denied';
        return back({ error: denied ? 'access_denied' : 'provider_error', error_description: denied ? `The sign-in at ${client.name} was cancelled.` : `${client.name} could not sign you in.` });
      }
      let claims: ProviderClaims;
      try {
        claims = await client.redeem(params, { state: state!, nonce: flow.nonce, verifier: flow.provider_verifier });
      } catch (error) {
        deps.warn?.({ provider: providerId, err: error }, 'sign-in provider answer refused');
        return back({ error: 'provider_error', error_description: `The answer from ${client.name} could not be verified: try again.` });
      }
      // What a provider says is input too (provenFrom).
      const proven = provenFrom(providerId, claims);
      if (!proven) {
        deps.warn?.({ provider: providerId }, 'sign-in provider answer refused: unusable subject');
        return back({ error: 'provider_error', error_description: `The answer from ${client.name} could not be used: try again.` });
      }
      const code = newOpaqueToken(CODE_PREFIX);
      const createdMs = clock.now();
      await repo.insertCode({
        ...proven, code_hash: sha256Hex(code), code_challenge: flow.code_challenge,
        created_at: isoTime(createdMs), expires_at: isoTime(createdMs + CODE_TTL_S * 1000),
      });
      return back({ code });
    },

    /** Step 3 (signing in): the code and the app's verifier → tokens, or the second-factor challenge. */
    async signIn(input: { code: string; code_verifier: string }, client: ClientInfo, guestId?: string): Promise<TokenResponse> {
      return signInAs(await redeemCode(input), client, 'oidc', guestId);
    },

    /**
     * A native app's sign-in (Sign in with Apple, Google's sheet): the ID token it got, checked here
     * (provider-clients.ts `verifyIdToken`), then the same account rules as the browser flow.
     * `name` names a new account when the token has none (Apple tells the app the name once, and
     * puts it in no token).
     */
    async signInWithIdToken(input: { provider: string; id_token: string; nonce?: string | undefined; name?: string | undefined }, client: ClientInfo, guestId?: string): Promise<TokenResponse> {
      const provider = providers.get(input.provider);
      if (!provider?.nativeSignIn) {
        throw fieldError('/provider', 'not_allowed', `No provider "${input.provider}" takes native ID tokens here (OIDC_PROVIDERS entries with native_client_ids).`);
      }
      let claims: ProviderClaims;
      try {
        claims = await provider.verifyIdToken(input.id_token, input.nonce, new Date(clock.now()));
      } catch (error) {
        if (error instanceof IdTokenRefused) {
          deps.warn?.({ provider: input.provider, reason: error.message }, 'native ID token refused');
          throw new AppError('invalid_token', `The ID token is not one ${provider.name} issued for this app, has expired, or its nonce does not match.`);
        }
        deps.warn?.({ provider: input.provider, err: error }, 'sign-in provider unreachable');
        throw new AppError('service_unavailable', `${provider.name} cannot be reached right now; try again in a minute.`, { headers: { 'Retry-After': '60' } });
      }
      const proven = provenFrom(input.provider, claims);
      if (!proven) throw new AppError('invalid_token', `The ID token from ${provider.name} names no usable subject.`);
      return signInAs({ ...proven, name: proven.name ?? (input.name ? [...withoutControl(input.name)].slice(0, 200).join('') || null : null) }, client, 'id_token', guestId);
    },

    /**
     * Step 3 (from settings): link the provider's identity to the signed-in account. Needs the
     * password (or, on an account without one, a sign-in within the last minutes): a stolen
     * access token must not add its thief's way in.
     */
    async link(user: UserRow, sessionId: string, input: { code: string; code_verifier: string; password?: string | undefined }, client: ClientInfo) {
      await deps.confirmOwner(user.id, sessionId, input.password, '/password');
      const code = await redeemCode(input);
      const name = provider(code.provider).name;
      const existing = await repo.find(code.provider, code.subject);
      if (existing) {
        throw new AppError('conflict', existing.user_id === user.id ? `This ${name} account is linked already.` : `This ${name} account is linked to another Gatehouse account.`);
      }
      const row = newIdentity(user.id, code);
      const recorded = await repo.db.transaction().execute(async (trx) => {
        try {
          await createIdentitiesRepository(trx).insert(row);
        } catch (error) {
          if (isUniqueViolation(error)) throw new AppError('conflict', `This ${name} account is linked already.`);
          throw error;
        }
        return publish(trx, user.id, 'user.identity.linked', row);
      });
      await afterLink(user, row, client, recorded);
      return presentIdentity(row, providers);
    },

    /** The second factor was proved for a sign-in that held back its link (mfa.service.ts `completeLogin`). */
    async linkPending(user: UserRow, pending: string, client: ClientInfo): Promise<void> {
      const row = JSON.parse(pending) as IdentityRow;
      if (row.user_id !== user.id) return;
      // The factor may come minutes after the first step: the link is made only if accountFor
      // would still allow it now (the address still the account's, confirmed; no admin's; the
      // provider still trusted for addresses). Otherwise the sign-in completes without it. An
      // identity linked elsewhere meanwhile meets the unique (provider, subject) in linkByEmail.
      const current = await deps.users.findById(user.id);
      const sameAddress = current !== undefined && row.email !== null && isEmailAddress(current.email) && normalizeEmail(current.email) === normalizeEmail(row.email);
      const linkable = sameAddress && current.email_verified === 1 && current.role !== 'admin' && current.disabled !== 1 && providers.get(row.provider)?.linkByEmail === true;
      if (!linkable) return;
      await linkByEmail(current, { ...row, last_used_at: now() }, client);
    },

    /** Unlink, unless it is the account's last sign-in method (no password, no passkey, no other provider). */
    async unlink(user: UserRow, id: string, client: ClientInfo): Promise<void> {
      const { removed, recorded } = await repo.db.transaction().execute(async (trx) => {
        const identities = createIdentitiesRepository(trx);
        if (!(await identities.listForUser(user.id)).some((row) => row.id === id)) return { removed: undefined, recorded: undefined };
        await assertKeepsASignInMethod(trx, deps.dialect, user.id);
        const removed = await identities.remove(user.id, id);
        return { removed, recorded: removed ? await publish(trx, user.id, 'user.identity.unlinked', removed) : undefined };
      });
      if (!removed) throw new AppError('not_found', 'No linked sign-in with this id.');
      if (recorded) deps.onEvent?.(recorded);
      await deps.securityLog.record(user.id, 'identity_unlinked', client, { identity_id: id, provider: removed.provider });
      deps.notify?.(user, `Sign-in with ${providers.get(removed.provider)?.name ?? removed.provider} was unlinked`);
    },
  };
}
export type IdentitiesService = ReturnType<typeof createIdentitiesService>;
