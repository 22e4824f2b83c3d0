import type { ClientInfo } from '../../kernel/client-info.js';
import { AppError } from '../../kernel/errors.js';
import { toPage } from '../../kernel/pagination.js';
import { isoTime, type Clock } from '../../kernel/clock.js';
import { newId } from '../../kernel/ids.js';
import type { RevocationList } from '../../kernel/revocation.js';
import type { AccessTokens } from '../tokens/access-tokens.js';
import { newOpaqueToken, sha256Hex } from '../../kernel/opaque-tokens.js';
import { USER_SCOPES } from '../../kernel/access-terms/scopes.js';
import { recordEvent, type RecordedEvent } from '../../kernel/events/event-outbox.js';
import type { OnEventsCommitted } from '../../kernel/events/event-signal.js';
import { createSessionsRepository, type SessionRow, type SessionsRepository } from './sessions.repository.js';

/** A second use of a rotated refresh token this soon is a client racing itself, not theft. */
export const REFRESH_REUSE_GRACE_MS = 10_000;
const REFRESH_TOKEN_PREFIX = 'gthr_';

export interface TokenResponse {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** Which sessions a logout ends (POST /v1/auth/logout `scope`; Supabase's signOut scopes). */
export const SIGN_OUT_SCOPES = ['current', 'others', 'all'] as const;
export type SignOutScope = (typeof SIGN_OUT_SCOPES)[number];

export interface SessionsServiceDeps {
  sessions: SessionsRepository;
  /** Only issues (the operator's CLI, which starts no session, passes one that refuses). */
  accessTokens: Pick<AccessTokens, 'issue'>;
  revocations: RevocationList;
  clock: Clock;
  accessTokenTtl: number;
  refreshTokenTtl: number;
  onRefreshTokenReuse?: (info: { userId: string; sessionId: string; client?: ClientInfo }) => void;
  onEvent?: OnEventsCommitted;
  /**
   * Ends the grants the account made to apps (access implements it: access/oauth/oauth-grants.ts),
   * with every session of the account: signing out everywhere, a password change or reset, a
   * disabled or deleted account take the apps' access away too.
   */
  endAppGrants?: (userId: string) => Promise<unknown>;
}

export function createSessionsService(deps: SessionsServiceDeps) {
  const { sessions, accessTokens, revocations, clock } = deps;
  const scope = USER_SCOPES.join(' ');
  const idleExpiry = () => isoTime(clock.now() + deps.refreshTokenTtl * 1000);
  // A revoked session's tokens live at most one access-token lifetime; remember it that long.
  const revokedUntil = () => clock.now() + deps.accessTokenTtl * 1000 + 60_000;

  async function tokensFor(userId: string, sessionId: string, amr: string, refreshToken: string): Promise<TokenResponse> {
    const { token, expiresIn } = await accessTokens.issue({ userId, sessionId, scope, amr: amr.split(' ') });
    return { access_token: token, token_type: 'bearer', expires_in: expiresIn, refresh_token: refreshToken, scope };
  }

  async function revokeSessions(ids: string[]): Promise<void> {
    if (ids.length) await revocations.revoke(ids, revokedUntil());
  }

  /**
   * Marks sessions revoked in one statement and writes one session.revoked event for them, in one
   * transaction: `{ id, ids: [id], reason }` for one session, `{ ids, reason }` for all of an
   * account's (sign out everywhere, a password change or reset, a disabled account).
   */
  async function revokeWithEvents(where: Parameters<SessionsRepository['revoke']>[0], reason: string, extra?: { type: 'security.refresh_token_reused' }): Promise<string[]> {
    const { ids, recorded } = await sessions.db.transaction().execute(async (trx) => {
      const revoked = await createSessionsRepository(trx, sessions.dialect).revoke(where, isoTime(clock.now()), reason);
      if (revoked.length === 0) return { ids: revoked, recorded: [] };
      const data = where.sessionId ? { id: revoked[0], ids: revoked, reason } : { ids: revoked, reason };
      const recorded = [await recordEvent(trx, clock, { userId: where.userId, type: 'session.revoked', data })];
      if (extra) recorded.push(await recordEvent(trx, clock, { userId: where.userId, type: extra.type, data: { session_id: revoked[0] } }));
      return { ids: revoked, recorded };
    });
    deps.onEvent?.(...recorded);
    await revokeSessions(ids);
    if (where.sessionId === undefined) await deps.endAppGrants?.(where.userId);
    return ids;
  }

  return {
    /**
     * A new session. `amr`: how it was authenticated (`pwd`, or `pwd otp` after a second factor);
     * `factorProved`: a second factor was proved for it just now (the step-up window starts).
     */
    async start(userId: string, client: { ip?: string; userAgent?: string }, how: { amr: readonly string[]; factorProved: boolean } = { amr: ['pwd'], factorProved: false }): Promise<TokenResponse> {
      const now = isoTime(clock.now());
      const amr = how.amr.join(' ');
      const sessionId = newId('session');
      const refreshToken = newOpaqueToken(REFRESH_TOKEN_PREFIX);
      await sessions.insertWithRefreshToken(
        {
          id: sessionId,
          user_id: userId,
          created_at: now,
          last_used_at: now,
          expires_at: idleExpiry(),
          revoked_at: null,
          revoked_reason: null,
          ip: client.ip?.slice(0, 64) ?? null,
          user_agent: client.userAgent?.slice(0, 512) ?? null,
          amr,
          factor_verified_at: how.factorProved ? now : null,
        },
        { token_hash: sha256Hex(refreshToken), session_id: sessionId, created_at: now, rotated_at: null },
      );
      return tokensFor(userId, sessionId, amr, refreshToken);
    },

    /**
     * Rotation: every use retires the presented token and issues a new one. A retired token used
     * again within the grace window (two tabs refreshing at once) gets a sibling token; used later,
     * it means someone else holds a copy, so the whole session is revoked.
     */
    async refresh(refreshToken: string, client?: ClientInfo): Promise<TokenResponse> {
      const invalid = new AppError('invalid_token', 'The refresh token is not valid.');
      if (!refreshToken.startsWith(REFRESH_TOKEN_PREFIX) || refreshToken.length > 100) throw invalid;
      const hash = sha256Hex(refreshToken);
      const found = await sessions.findByRefreshHash(hash);
      const nowMs = clock.now();
      if (!found || found.revoked_at !== null) throw invalid;
      if (found.expires_at <= isoTime(nowMs)) throw new AppError('token_expired', 'The session has expired; log in again.');

      const nowIso = isoTime(nowMs);
      const next = newOpaqueToken(REFRESH_TOKEN_PREFIX);
      const outcome = await sessions.db.transaction().execute(async (trx) => {
        const rotated = await trx.updateTable('refresh_tokens').set({ rotated_at: nowIso }).where('token_hash', '=', hash).where('rotated_at', 'is', null).executeTakeFirst();
        if (Number(rotated.numUpdatedRows) === 0) {
          const row = await trx.selectFrom('refresh_tokens').select('rotated_at').where('token_hash', '=', hash).executeTakeFirst();
          const rotatedAt = row?.rotated_at ? Date.parse(row.rotated_at) : 0;
          if (nowMs - rotatedAt > REFRESH_REUSE_GRACE_MS) return 'reused' as const;
        }
        await trx.insertInto('refresh_tokens').values({ token_hash: sha256Hex(next), session_id: found.session_id, created_at: nowIso, rotated_at: null }).execute();
        await trx.updateTable('sessions').set({ last_used_at: nowIso, expires_at: idleExpiry() }).where('id', '=', found.session_id).execute();
        return 'rotated' as const;
      });
      if (outcome === 'reused') {
        await revokeWithEvents({ userId: found.user_id, sessionId: found.session_id }, 'refresh_token_reused', { type: 'security.refresh_token_reused' });
        deps.onRefreshTokenReuse?.({ userId: found.user_id, sessionId: found.session_id, client });
        throw new AppError('invalid_token', 'This refresh token was already used; the session has been revoked for safety.');
      }
      return tokensFor(found.user_id, found.session_id, found.amr, next);
    },

    /** When this live session of `userId` began (null: not theirs, or revoked). */
    async startedAt(userId: string, sessionId: string): Promise<string | null> {
      const row = await sessions.findById(sessionId);
      return row && row.user_id === userId && row.revoked_at === null ? row.created_at : null;
    },

    /** When a second factor was last proved in this live session of `userId` (null: never, or not theirs). */
    async factorProvedAt(userId: string, sessionId: string): Promise<string | null> {
      const row = await sessions.findById(sessionId);
      return row && row.user_id === userId && row.revoked_at === null ? row.factor_verified_at : null;
    },

    /** A second factor was just proved in this session of `userId` (step-up, or turning one on). */
    async factorProved(userId: string, sessionId: string): Promise<void> {
      await sessions.markFactorProved(userId, sessionId, isoTime(clock.now()));
    },

    async list(userId: string, limit: number, cursor?: string): Promise<{ rows: SessionRow[]; nextCursor: string | null }> {
      return toPage(await sessions.listActiveForUser(userId, isoTime(clock.now()), limit + 1, cursor), limit);
    },

    /** Revokes one session of this user; 404 when it is not theirs or already gone. */
    async revoke(userId: string, sessionId: string, reason = 'revoked'): Promise<void> {
      const ids = await revokeWithEvents({ userId, sessionId }, reason);
      if (ids.length === 0) throw new AppError('not_found', 'No active session with this id.');
    },

    async revokeAll(userId: string, reason: string, exceptSessionId?: string): Promise<string[]> {
      return revokeWithEvents({ userId, exceptSessionId }, reason);
    },

    /**
     * A logout: this session (`current`), every other one of the account (`others`: "sign out
     * everywhere else"), or all of them. One UPDATE and one session.revoked event either way; the
     * revoked sessions' access tokens fail at once on every instance (the revocation list) and
     * their live streams close. Returns the revoked ids.
     */
    async signOut(userId: string, sessionId: string, scope: SignOutScope): Promise<string[]> {
      if (scope === 'current') return revokeWithEvents({ userId, sessionId }, 'logout');
      return revokeWithEvents({ userId, exceptSessionId: scope === 'others' ? sessionId : undefined }, scope === 'others' ? 'logout_others' : 'logout_all');
    },

    /** Before a user row disappears: every session id, revoked or not, joins the revocation list. */
    /** The ids of a user's sessions (read before the account is deleted, revoked after with `forget`). */
    idsOf: (userId: string): Promise<string[]> => sessions.idsForUser(userId),
    /** Every instance refuses these sessions' tokens at once. */
    forget: (ids: string[]): Promise<void> => revokeSessions(ids),

    /** At start: sessions revoked recently may still have live tokens in the wild. */
    async loadRecentRevocations(): Promise<void> {
      const since = isoTime(clock.now() - deps.accessTokenTtl * 1000 - 60_000);
      const rows = await sessions.revokedSince(since);
      await revokeSessions(rows.map((r) => r.id));
    },
  };
}
export type SessionsService = ReturnType<typeof createSessionsService>;
