import type { Kysely } from 'kysely';
import type { ClientInfo } from '../kernel/client-info.js';
import { AppError, tooManyAttempts } from '../kernel/errors.js';
import { isoTime, type Clock } from '../kernel/clock.js';
import type { Database } from '../kernel/db/schema.js';
import type { AttemptLimiter } from '../kernel/limits/limiter.js';
import { presentAgent, presentChat, presentEndpoint, presentMessage, type ChatRow } from '../platform/index.js';
import { presentApiKey } from '../access/index.js';
import { hasPassword, type SecurityLog, type UserRow } from '../identity/index.js';
import { ACCOUNT_EXPORT_FORMAT, ACCOUNT_EXPORT_VERSION } from './account-export.schemas.js';

/** Rows per query: memory holds one page (and one chat's page of messages), however big the account. */
const PAGE = 500;
/** Exports per account and hour: each reads everything the account holds. */
const EXPORTS_PER_HOUR = 10;

export interface AccountExportDeps {
  db: Kysely<Database>;
  clock: Clock;
  attempts: AttemptLimiter;
  securityLog: SecurityLog;
  /** The account's passkeys and linked providers, presented as their own routes do. */
  passkeys: { list(userId: string): Promise<unknown[]> };
  identities: { list(userId: string): Promise<unknown[]> };
}

type Keyed = { id: string };

/** Every row a keyset query reaches, a page at a time, in id order. */
async function* rowsOf<T extends Keyed>(read: (after: string | undefined, limit: number) => Promise<T[]>): AsyncGenerator<T> {
  let after: string | undefined;
  for (;;) {
    const rows = await read(after, PAGE);
    yield* rows;
    if (rows.length < PAGE) return;
    after = rows.at(-1)!.id;
  }
}

/** A JSON array written as it is read: each element's text comes from `write` (which may stream too). */
async function* jsonArray<T>(rows: AsyncIterable<T>, write: (row: T) => AsyncIterable<string>): AsyncGenerator<string> {
  yield '[';
  let first = true;
  for await (const row of rows) {
    if (!first) yield ',';
    first = false;
    yield* write(row);
  }
  yield ']';
}

const json = (value: unknown) => JSON.stringify(value);
async function* one(value: unknown): AsyncGenerator<string> {
  yield json(value);
}

/**
 * GET /v1/users/me/export (format: account-export.schemas.ts, docs/guides/account.md, "Your data"). The document is
 * written while it is read, page by page, so memory stays flat whatever the caps allow an account
 * to hold. It is not a snapshot: a change made during a long export may or may not be in it.
 */
export function createAccountExport(deps: AccountExportDeps) {
  const { db, clock } = deps;
  // Keyset pages in id order; `id > after` rides each table's primary key or (owner, id) index.
  const agents = (orgId: string) => (after: string | undefined, limit: number) => {
    let q = db.selectFrom('agents').selectAll().where('org_id', '=', orgId);
    if (after) q = q.where('id', '>', after);
    return q.orderBy('id').limit(limit).execute();
  };
  const chats = (orgId: string) => (after: string | undefined, limit: number) => {
    let q = db.selectFrom('chats').selectAll().where('org_id', '=', orgId);
    if (after) q = q.where('id', '>', after);
    return q.orderBy('id').limit(limit).execute();
  };
  const messages = (chatId: string) => (after: string | undefined, limit: number) => {
    let q = db.selectFrom('messages').selectAll().where('chat_id', '=', chatId);
    if (after) q = q.where('id', '>', after);
    return q.orderBy('id').limit(limit).execute();
  };
  const sessions = (userId: string) => (after: string | undefined, limit: number) => {
    let q = db.selectFrom('sessions').select(['id', 'created_at', 'last_used_at', 'expires_at', 'revoked_at', 'ip', 'user_agent']).where('user_id', '=', userId);
    if (after) q = q.where('id', '>', after);
    return q.orderBy('id').limit(limit).execute();
  };
  const securityEvents = (userId: string) => (after: string | undefined, limit: number) => {
    let q = db.selectFrom('security_events').selectAll().where('user_id', '=', userId);
    if (after) q = q.where('id', '>', after);
    return q.orderBy('id').limit(limit).execute();
  };

  async function* chatWithMessages(chat: ChatRow): AsyncGenerator<string> {
    yield `${json(presentChat(chat)).slice(0, -1)},"messages":`;
    yield* jsonArray(rowsOf(messages(chat.id)), (m) => one(presentMessage(m)));
    yield '}';
  }

  async function* document(user: UserRow): AsyncGenerator<string> {
    const now = clock.now();
    const orgId = user.personal_org_id;
    const memberships = await db.selectFrom('memberships').innerJoin('organizations', 'organizations.id', 'memberships.org_id')
      .select(['organizations.id', 'organizations.name', 'organizations.personal', 'memberships.role', 'memberships.created_at']).where('memberships.user_id', '=', user.id)
      .orderBy('organizations.personal', 'desc').orderBy('memberships.created_at').orderBy('organizations.id').execute();
    yield `{"format":${json(ACCOUNT_EXPORT_FORMAT)},"version":${ACCOUNT_EXPORT_VERSION},"exported_at":${json(isoTime(now))},"user":${json({
      id: user.id, email: user.email, name: user.name, email_verified: user.email_verified === 1, role: user.role === 'admin' ? 'admin' : 'user',
      has_password: hasPassword(user), personal_organization_id: orgId, created_at: user.created_at, updated_at: user.updated_at,
    })}`;
    yield `,"organizations":${json(memberships.map((m) => ({ id: m.id, name: m.name, personal: m.personal === 1, role: m.role, joined_at: m.created_at })))}`;
    yield `,"personal_organization":{"id":${json(orgId)},"agents":`;
    yield* jsonArray(rowsOf(agents(orgId)), (a) => one(presentAgent(a)));
    yield ',"chats":';
    yield* jsonArray(rowsOf(chats(orgId)), chatWithMessages);
    // Both capped small (WEBHOOKS_PER_ORGANIZATION, API_KEYS_PER_ORGANIZATION): one query each.
    const endpoints = await db.selectFrom('webhook_endpoints').selectAll().where('org_id', '=', orgId).orderBy('id').execute();
    yield `,"webhook_endpoints":${json(endpoints.map((e) => presentEndpoint(e, now)))}`;
    const keys = await db.selectFrom('api_keys').selectAll().where('org_id', '=', orgId).where('revoked_at', 'is', null).orderBy('id').execute();
    yield `,"api_keys":${json(keys.map((k) => presentApiKey(k, now)))}}`;
    yield ',"sessions":';
    yield* jsonArray(rowsOf(sessions(user.id)), (s) => one(s));
    yield `,"passkeys":${json(await deps.passkeys.list(user.id))},"identities":${json(await deps.identities.list(user.id))},"security_events":`;
    yield* jsonArray(rowsOf(securityEvents(user.id)), (e) => one({ id: e.id, type: e.type, ip: e.ip, user_agent: e.user_agent, detail: JSON.parse(e.detail) as unknown, created_at: e.created_at }));
    yield '}';
  }

  return {
    /**
     * Checks the account's allowance of exports and records one in the security log (a stolen
     * session reading everything at once is worth seeing); returns the file name and the
     * document's text, produced as it is consumed.
     */
    async start(userId: string, client: ClientInfo): Promise<{ filename: string; chunks: AsyncIterable<string> }> {
      const decision = await deps.attempts.take([{ key: `account-export:${userId}`, limit: EXPORTS_PER_HOUR, windowSeconds: 3600 }]);
      if (!decision.allowed) throw tooManyAttempts('Too many exports; try again later.', decision.retryAfterSeconds);
      const user = await db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
      if (!user) throw new AppError('invalid_token', 'The account behind this credential no longer exists.');
      await deps.securityLog.record(userId, 'account_exported', client);
      return { filename: `gatehouse-export-${userId}.json`, chunks: document(user) };
    },
  };
}
export type AccountExport = ReturnType<typeof createAccountExport>;
