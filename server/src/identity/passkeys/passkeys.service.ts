import {
  generateAuthenticationOptions, generateRegistrationOptions, verifyAuthenticationResponse, verifyRegistrationResponse,
  type AuthenticationResponseJSON, type AuthenticatorTransportFuture, type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { decodeAttestationObject } from '@simplewebauthn/server/helpers';
import type { ClientInfo } from '../../kernel/client-info.js';
import { AppError, fieldError } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { cleanName } from '../../kernel/names.js';
import { isoTime, type Clock } from '../../kernel/clock.js';
import type { DialectName } from '../../kernel/db/database.js';
import { isUniqueViolation } from '../../kernel/db/errors.js';
import { assertKeepsASignInMethod } from '../users/sign-in-methods.js';
import { assertMaySignIn } from '../auth/sign-in-rules.js';
import { recordEvent, type RecordedEvent } from '../../kernel/events/event-outbox.js';
import type { OnEventsCommitted } from '../../kernel/events/event-signal.js';
import type { SecurityLog } from '../security-log/security-log.js';
import type { SessionsService, TokenResponse } from '../sessions/sessions.service.js';
import { newOpaqueToken, sha256Hex } from '../../kernel/opaque-tokens.js';
import type { UserRow, UsersRepository } from '../users/users.repository.js';
import { createPasskeysRepository, type PasskeyRow, type PasskeysRepository } from './passkeys.repository.js';
import type { RestoreOnSignIn } from '../users/restore-on-sign-in.js';

/** How long a ceremony (options → the authenticator → verify) may take. */
export const CEREMONY_TTL_S = 300;
/** Passkeys per account: enough for every device a person owns; a bound on what one token can add. */
export const MAX_PASSKEYS = 20;
const CHALLENGE_PREFIX = 'gthw_';
const TRANSPORTS = new Set<string>(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);
const tooMany = () => new AppError('limit_reached', `An account holds at most ${MAX_PASSKEYS} passkeys; remove one first.`);

export interface PasskeysServiceDeps {
  repo: PasskeysRepository;
  /** The password, or on an account without one a recent sign-in (users service: throttled, a field error when wrong). */
  confirmOwner: (userId: string, sessionId: string, password: string | undefined, field: string) => Promise<void>;
  users: Pick<UsersRepository, 'findById'>;
  sessions: SessionsService;
  securityLog: SecurityLog;
  clock: Clock;
  dialect: DialectName;
  webauthn: { rpId: string; rpName: string; origins: string[] };
  requireEmailVerification: boolean;
  onEvent?: OnEventsCommitted;
  /** Mails the owner about a change to how the account signs in (account-email.service.ts). */
  notify?: (user: { email: string; name: string }, change: string) => void;
  /** An account scheduled for deletion is restored by signing in (flows/account-deletion.ts). */
  restoreAccount: RestoreOnSignIn;
}

export function presentPasskey(row: PasskeyRow) {
  return {
    id: row.id, name: row.name, device_type: row.device_type, backed_up: row.backed_up === 1,
    transports: transportsOf(row), created_at: row.created_at, last_used_at: row.last_used_at,
  };
}

/**
 * Passkeys (WebAuthn, through @simplewebauthn/server): added and managed in settings, and a
 * passwordless login with a discoverable credential. Every ceremony's challenge is stored hashed
 * behind a one-time `challenge_id` (`gthw_…`, 5 minutes), so it works on any instance.
 */
export function createPasskeysService(deps: PasskeysServiceDeps) {
  const { repo, clock, webauthn } = deps;
  const now = () => isoTime(clock.now());

  async function newChallenge(purpose: 'register' | 'login', userId: string | null, challenge: string): Promise<string> {
    const token = newOpaqueToken(CHALLENGE_PREFIX);
    const createdMs = clock.now();
    await repo.insertChallenge({ token_hash: sha256Hex(token), user_id: userId, purpose, challenge, created_at: isoTime(createdMs), expires_at: isoTime(createdMs + CEREMONY_TTL_S * 1000) });
    return token;
  }

  async function takeChallenge(token: string, purpose: 'register' | 'login', userId: string | null): Promise<string | undefined> {
    if (!token.startsWith(CHALLENGE_PREFIX) || token.length > 100) return undefined;
    return (await repo.takeChallenge(sha256Hex(token), purpose, userId, now()))?.challenge;
  }


  return {
    list: async (userId: string) => (await repo.listForUser(userId)).map(presentPasskey),

    /**
     * Step one of adding a passkey: options for `navigator.credentials.create()`. Needs the
     * password (or, without one, a recent sign-in): a passkey signs in by itself, so a stolen access token must not add the thief's.
     */
    async registrationOptions(user: UserRow, sessionId: string, password: string | undefined) {
      const existing = await repo.listForUser(user.id);
      if (existing.length >= MAX_PASSKEYS) throw tooMany();
      await deps.confirmOwner(user.id, sessionId, password, '/password');
      const options = await generateRegistrationOptions({
        rpName: webauthn.rpName, rpID: webauthn.rpId, userName: user.email, userDisplayName: user.name,
        userID: new TextEncoder().encode(user.id), attestationType: 'none',
        // Each authenticator once; a discoverable credential, so login needs no email first.
        excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: transportsOf(p) })),
        // User verification (the device's PIN, fingerprint or face) is required: a passkey login
        // stands in for password and second factor together, so possession alone is not enough.
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      });
      return { challenge_id: await newChallenge('register', user.id, options.challenge), options };
    },

    /** Step two: the authenticator's answer to those options; stores the passkey. */
    async register(user: UserRow, input: { challenge_id: string; credential: RegistrationResponseJSON; name?: string | undefined }, client: ClientInfo) {
      const name = cleanName(input.name ?? 'Passkey'); // before the challenge is spent on a bad name
      const expectedChallenge = await takeChallenge(input.challenge_id, 'register', user.id);
      if (!expectedChallenge) throw fieldError('/challenge_id', 'invalid_value', 'The challenge is unknown, used or expired: ask for new options.');
      // The library's own words may quote the expected challenge, our origins or certificates: not for clients.
      const refused = () => fieldError('/credential', 'invalid_credential', "The authenticator's answer was not accepted: try again, from this site.");
      // Only `none` attestation (what the options ask for, and what browsers send then): checking a
      // certificate chain would make this server fetch revocation lists named by the client's certificates.
      if (attestationFormat(input.credential) !== 'none') throw refused();
      let verification: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
      try {
        verification = await verifyRegistrationResponse({ response: input.credential, expectedChallenge, expectedOrigin: webauthn.origins, expectedRPID: webauthn.rpId, requireUserVerification: true });
      } catch {
        throw refused();
      }
      if (!verification.verified || !verification.registrationInfo) throw refused();
      const { credential, credentialDeviceType, credentialBackedUp } = verification.registrationInfo;
      const row: PasskeyRow = {
        id: newId('passkey'), user_id: user.id, credential_id: credential.id, public_key: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter, transports: (credential.transports ?? []).filter((t) => TRANSPORTS.has(t)).join(' '),
        device_type: credentialDeviceType, backed_up: credentialBackedUp ? 1 : 0,
        name, created_at: now(), last_used_at: null,
      };
      // The passkey and its event together; the cap is checked again here (two ceremonies may have
      // started under it; a third racing in between can still pass: the cap bounds, it is not exact).
      const recorded = await repo.db.transaction().execute(async (trx) => {
        if ((await createPasskeysRepository(trx).countForUser(user.id)) >= MAX_PASSKEYS) throw tooMany();
        try {
          await createPasskeysRepository(trx).insert(row);
        } catch (error) {
          if (isUniqueViolation(error)) throw new AppError('conflict', 'This passkey is registered already.');
          throw error;
        }
        return recordEvent(trx, clock, { userId: user.id, type: 'user.passkey.added', data: { user_id: user.id, passkey_id: row.id, name: row.name } });
      });
      deps.onEvent?.(recorded);
      await deps.securityLog.record(user.id, 'passkey_added', client, { passkey_id: row.id, name: row.name });
      deps.notify?.(user, `A passkey (“${row.name}”) was added`);
      return presentPasskey(row);
    },

    async rename(userId: string, id: string, name: string) {
      const row = await repo.rename(userId, id, cleanName(name));
      if (!row) throw new AppError('not_found', 'No passkey with this id.');
      return presentPasskey(row);
    },

    async remove(user: UserRow, id: string, client: ClientInfo): Promise<void> {
      const userId = user.id;
      const { removed, recorded } = await repo.db.transaction().execute(async (trx) => {
        if (!(await createPasskeysRepository(trx).isOwnedBy(userId, id))) return { removed: undefined, recorded: undefined };
        // An account without a password keeps a passkey or a provider.
        await assertKeepsASignInMethod(trx, deps.dialect, userId);
        const removed = await repo.remove(trx, userId, id);
        if (!removed) return { removed, recorded: undefined };
        return { removed, recorded: await recordEvent(trx, clock, { userId, type: 'user.passkey.removed', data: { user_id: userId, passkey_id: id, name: removed.name } }) };
      });
      if (!removed) throw new AppError('not_found', 'No passkey with this id.');
      if (recorded) deps.onEvent?.(recorded);
      await deps.securityLog.record(userId, 'passkey_removed', client, { passkey_id: id, name: removed.name });
      deps.notify?.(user, `A passkey (“${removed.name}”) was removed`);
    },

    /** Step one of a passwordless login: options for `navigator.credentials.get()` (any of the user's passkeys). */
    async loginOptions() {
      const options = await generateAuthenticationOptions({ rpID: webauthn.rpId, userVerification: 'required' });
      return { challenge_id: await newChallenge('login', null, options.challenge), options };
    },

    /**
     * Step two: the authenticator's signature over that challenge. Every refusal is the same 401,
     * whether the credential is unknown, the signature wrong or the challenge spent.
     */
    async login(input: { challenge_id: string; credential: AuthenticationResponseJSON }, client: ClientInfo): Promise<TokenResponse> {
      const refused = () => new AppError('invalid_credentials', 'The passkey was not accepted: try again.');
      const expectedChallenge = await takeChallenge(input.challenge_id, 'login', null);
      if (!expectedChallenge) throw refused();
      const passkey = await repo.findByCredentialId(input.credential.id);
      if (!passkey) throw refused();
      // The authenticator names the account the credential was made for: it must be the owner's.
      const handle = input.credential.response.userHandle;
      if (handle !== undefined && Buffer.from(handle, 'base64url').toString() !== passkey.user_id) throw refused();
      let verification: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
      try {
        verification = await verifyAuthenticationResponse({
          response: input.credential, expectedChallenge, expectedOrigin: webauthn.origins, expectedRPID: webauthn.rpId, requireUserVerification: true,
          credential: { id: passkey.credential_id, publicKey: Buffer.from(passkey.public_key, 'base64url'), counter: Number(passkey.counter), transports: transportsOf(passkey) },
        });
      } catch {
        throw refused();
      }
      if (!verification.verified) throw refused();
      // The library refuses a counter that went backwards (a cloned security key); synced passkeys
      // keep theirs at 0, so for them replay is stopped by the one-time challenge alone. The
      // conditional UPDATE keeps two logins of one key from both moving the stored counter.
      if (!(await repo.recordUse(passkey.id, passkey.counter, verification.authenticationInfo.newCounter, now()))) throw refused();
      const user = await deps.users.findById(passkey.user_id);
      if (!user) throw refused();
      assertMaySignIn(user, deps.requireEmailVerification);
      await deps.restoreAccount(user, client);
      // A passkey proves possession and (usually) the user's presence and verification: it is the
      // whole sign-in, and counts as a proved factor for step-up.
      const tokens = await deps.sessions.start(user.id, client, { amr: ['webauthn'], factorProved: true });
      await deps.securityLog.record(user.id, 'sign_in', client, { method: 'passkey', passkey_id: passkey.id });
      return tokens;
    },
  };
}
export type PasskeysService = ReturnType<typeof createPasskeysService>;

function transportsOf(row: PasskeyRow): AuthenticatorTransportFuture[] {
  return (row.transports ? row.transports.split(' ') : []) as AuthenticatorTransportFuture[];
}

/** The `fmt` inside a registration's attestation object, or null when it cannot be read. */
function attestationFormat(credential: RegistrationResponseJSON): string | null {
  try {
    return decodeAttestationObject(Buffer.from(credential.response.attestationObject, 'base64url')).get('fmt');
  } catch {
    return null;
  }
}
