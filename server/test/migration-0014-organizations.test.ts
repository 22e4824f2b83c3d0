import { randomBytes } from 'node:crypto';
import { Migrator, sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { newId } from '../src/kernel/ids.js';
import { sha256Hex } from '../src/kernel/opaque-tokens.js';
import { generateApiKey } from '../src/access/api-keys/api-key-format.js';
import { migrateToLatest, type DatabaseHandle } from '../src/kernel/db/database.js';
import { scratchDatabase } from './scratch-database.js';
import { MIGRATIONS } from '../src/kernel/db/migrations/index.js';

/**
 * A database written by the release before organizations (migrated to 0013, with what 2–3
 * accounts hold in it) keeps every row through 0014: each account's resources move to its
 * personal organization, which carries the account's tier, limits and counters; the foreign
 * keys point at organizations; every API key keeps its secret. On SQLite the file is reopened
 * after the migration (a fresh connection parses the edited schema) and checked.
 */
const url = process.env.DATABASE_URL ?? 'sqlite:';
const dialect = url.startsWith('postgres') ? 'postgres' : 'sqlite';

/** Tables whose `user_id` became `org_id` (value: the personal organization). */
const RENAMED = ['agents', 'chats', 'messages', 'webhook_endpoints', 'events', 'idempotency_keys', 'usage_counts', 'deliveries', 'event_sequences'];
/** Those of them with a foreign key, now to organizations. */
const WITH_FOREIGN_KEY = ['agents', 'chats', 'messages', 'webhook_endpoints', 'events', 'idempotency_keys', 'usage_counts'];
const ACCOUNT_COLUMNS = ['tier', 'limit_per_minute', 'limit_per_day', 'limit_streams', 'agent_count', 'chat_count', 'api_key_count', 'webhook_count'];
/** Kysely's bookkeeping: gains a row by design. */
const BOOKKEEPING = ['kysely_migration', 'kysely_migration_lock'];

const personalOrg = (userId: string) => `org_${userId.slice('usr_'.length)}`;

type Row = Record<string, unknown>;

/** A row as text with its keys sorted, so rows compare whatever the column order. */
function canonical(row: Row): string {
  return JSON.stringify(Object.fromEntries(Object.entries(row).sort(([a], [b]) => a.localeCompare(b))));
}

/** What 0014 should make of a row of the release's table. */
function expectedAfter(table: string, row: Row): Row {
  if (RENAMED.includes(table)) {
    const { user_id, ...rest } = row;
    return { ...rest, org_id: personalOrg(user_id as string) };
  }
  if (table === 'api_keys') return { ...row, org_id: personalOrg(row.user_id as string) };
  if (table === 'users') {
    const kept = Object.fromEntries(Object.entries(row).filter(([column]) => !ACCOUNT_COLUMNS.includes(column)));
    return { ...kept, personal_org_id: personalOrg(row.id as string), organization_count: 1 };
  }
  return row;
}

describe(`migration 0014 moves what every account holds to its personal organization (${dialect})`, () => {
  const scratch = scratchDatabase('0014');
  const { schema, open } = scratch;
  let handle: DatabaseHandle;


  async function tables(db: Kysely<any>): Promise<string[]> {
    const names =
      dialect === 'postgres'
        ? (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)).rows
        : (await sql<{ name: string }>`select name from sqlite_schema where type = 'table' and name not like 'sqlite_%'`.execute(db)).rows;
    return names.map((r) => r.name).filter((n) => !BOOKKEEPING.includes(n)).sort();
  }

  async function snapshot(db: Kysely<any>, names: string[]): Promise<Record<string, Row[]>> {
    const out: Record<string, Row[]> = {};
    for (const table of names) out[table] = await db.selectFrom(table).selectAll().execute();
    return out;
  }

  it('keeps every row, moves resources and account columns to personal organizations, retargets the foreign keys', async () => {
    handle = await open();
    const migrator = new Migrator({ db: handle.db, provider: { getMigrations: async () => MIGRATIONS }, migrationTableSchema: schema });
    expect((await migrator.migrateTo('0013-platform-keys')).error).toBeUndefined();
    const db = handle.db as unknown as Kysely<any>;

    // --- What the release wrote: three accounts --------------------------------------------
    const t0 = Date.parse('2025-03-01T09:00:00.000Z');
    const at = (minutes: number) => new Date(t0 + minutes * 60_000).toISOString();
    const alice = newId('user', t0); // pro, everything
    const bob = newId('user', t0 + 1); // enterprise with custom limits, an administrator with a service key
    const carol = newId('user', t0 + 2); // free, nothing yet, no name
    const gone = newId('user', t0 + 3); // deleted since: its event_sequences row (no foreign key) stayed
    const user = (id: string, name: string, extra: Row) => ({
      id, email: `${name || 'carol'}@example.com`, email_normalized: `${name || 'carol'}@example.com`, name, password_hash: `$argon2id$v=19$m=19456,t=2,p=1$${name}`,
      role: 'user', email_verified: 1, disabled: 0, created_at: at(0), updated_at: at(1),
      tier: 'free', limit_per_minute: null, limit_per_day: null, limit_streams: null, agent_count: 0, chat_count: 0, api_key_count: 0, webhook_count: 0, ...extra,
    });
    await db.insertInto('users').values([
      user(alice, 'alice', { tier: 'pro', agent_count: 2, chat_count: 2, api_key_count: 2, webhook_count: 1 }),
      user(bob, 'bob', { tier: 'enterprise', role: 'admin', limit_per_minute: 5000, limit_per_day: 2_000_000, limit_streams: 400, agent_count: 1, chat_count: 1, api_key_count: 1, webhook_count: 1 }),
      user(carol, '', { email_verified: 0 }),
    ]).execute();

    const session = (userId: string, revoked: boolean) => ({
      id: newId('session'), user_id: userId, created_at: at(2), last_used_at: at(3), expires_at: at(60 * 24 * 30),
      revoked_at: revoked ? at(4) : null, revoked_reason: revoked ? 'logout' : null, ip: '203.0.113.7', user_agent: 'curl/8.5', amr: 'pwd', factor_verified_at: null,
    });
    const sessions = [session(alice, false), session(alice, true), session(bob, false)];
    await db.insertInto('sessions').values(sessions).execute();
    await db.insertInto('refresh_tokens').values(sessions.map((s) => ({ token_hash: sha256Hex(s.id), session_id: s.id, created_at: at(2), rotated_at: null }))).execute();
    await db.insertInto('security_events').values({ id: newId('securityEvent'), user_id: alice, type: 'login', ip: '203.0.113.7', user_agent: 'curl/8.5', detail: '{}', created_at: at(2) }).execute();
    await db.insertInto('identities').values({ id: newId('identity'), user_id: bob, provider: 'github', subject: '12345', email: 'bob@example.com', created_at: at(2), last_used_at: null }).execute();

    const key = (userId: string, name: string, extra: Row = {}) => {
      const secret = generateApiKey();
      return {
        id: newId('apiKey'), user_id: userId, name, secret_hash: sha256Hex(secret), prefix: secret.slice(0, 8), last_four: secret.slice(-4),
        scopes: 'agents:read agents:write chats:read chats:write webhooks:read webhooks:write usage:read', created_at: at(5), expires_at: null, last_used_at: at(6), revoked_at: null,
        rate_limit_per_minute: null, rate_limit_per_day: null, remaining: null, refill_amount: null, refill_interval: null, refilled_at: null, previous_secret_hash: null, previous_expires_at: null,
        ...extra,
      };
    };
    await db.insertInto('api_keys').values([
      key(alice, 'ci', { rate_limit_per_minute: 60, rate_limit_per_day: 5000, remaining: 740, refill_amount: 1000, refill_interval: 'day', refilled_at: at(0) }),
      key(alice, 'rolled', { previous_secret_hash: sha256Hex(generateApiKey()), previous_expires_at: at(60 * 24) }),
      key(alice, 'leaked', { revoked_at: at(7) }),
      key(bob, 'verifier', { scopes: 'credentials:verify' }),
    ]).execute();

    const agent = (userId: string, name: string) => ({ id: newId('agent'), user_id: userId, name, description: `${name} agent`, instructions: 'Be brief.', model: 'gpt-4o-mini', metadata: '{"team":"x"}', created_at: at(8), updated_at: at(8) });
    const agents = [agent(alice, 'support'), agent(alice, 'sales'), agent(bob, 'ops')];
    await db.insertInto('agents').values(agents).execute();
    const chat = (userId: string, agentId: string, messageCount: number) => ({ id: newId('chat'), user_id: userId, agent_id: agentId, title: 'Hello', created_at: at(9), updated_at: at(10), message_count: messageCount });
    const chats = [chat(alice, agents[0]!.id, 2), chat(alice, agents[1]!.id, 0), chat(bob, agents[2]!.id, 3)];
    await db.insertInto('chats').values(chats).execute();
    const message = (chatId: string, userId: string, role: string, content: string, status = 'completed') => ({ id: newId('message'), chat_id: chatId, user_id: userId, role, content, created_at: at(11), status, delta_sequence: status === 'completed' ? 0 : 4 });
    await db.insertInto('messages').values([
      message(chats[0]!.id, alice, 'user', 'Where is my order?'), message(chats[0]!.id, alice, 'assistant', 'On its way.'),
      message(chats[2]!.id, bob, 'user', 'Status?'), message(chats[2]!.id, bob, 'assistant', 'All green.'), message(chats[2]!.id, bob, 'assistant', 'Also…', 'streaming'),
    ]).execute();

    const endpoint = (userId: string) => ({ id: newId('webhook'), user_id: userId, url: 'https://hooks.example.com/in', description: null, events: 'agent.* chat.*', secret: 'whsec_abc', enabled: 1, disabled_reason: null, created_at: at(12), updated_at: at(12) });
    const endpoints = [endpoint(alice), endpoint(bob)];
    await db.insertInto('webhook_endpoints').values(endpoints).execute();
    const event = (userId: string, seq: number | null, chatId: string | null) => ({ id: newId('event'), user_id: userId, type: 'agent.created', data: '{"id":"x"}', created_at: at(13), seq, chat_id: chatId });
    const events = [event(alice, 1, null), event(alice, 2, chats[0]!.id), event(bob, 1, chats[2]!.id), event(bob, null, null)];
    await db.insertInto('events').values(events).execute();
    const delivery = (e: Row, endpointId: string, status: string, attempts: number) => ({
      id: newId('delivery'), event_id: e.id, endpoint_id: endpointId, user_id: e.user_id, status, attempts, next_attempt_at: status === 'pending' ? at(20) : null,
      locked_until: null, last_status_code: attempts ? 500 : null, last_error: attempts ? 'HTTP 500' : null, created_at: at(13), updated_at: at(14),
    });
    const deliveries = [delivery(events[0]!, endpoints[0]!.id, 'delivered', 1), delivery(events[1]!, endpoints[0]!.id, 'pending', 2), delivery(events[2]!, endpoints[1]!.id, 'failed', 3)];
    await db.insertInto('deliveries').values(deliveries).execute();
    await db.insertInto('delivery_attempts').values(deliveries.flatMap((d) =>
      Array.from({ length: d.attempts }, (_, i) => ({ id: newId('delivery'), delivery_id: d.id, attempted_at: at(14 + i), status_code: 500, error: 'HTTP 500', duration_ms: 120 + i })))).execute();
    await db.insertInto('idempotency_keys').values([
      { user_id: alice, key: 'create-agent-1', request_hash: sha256Hex('a'), status_code: 201, response_body: `{"id":"${agents[0]!.id}"}`, created_at: at(8), response_location: `/v1/agents/${agents[0]!.id}` },
      { user_id: bob, key: 'create-agent-1', request_hash: sha256Hex('b'), status_code: 201, response_body: `{"id":"${agents[2]!.id}"}`, created_at: at(8), response_location: `/v1/agents/${agents[2]!.id}` },
    ]).execute();
    const usage = (userId: string, keyId: string, granularity: string, bucket: string, ok: number) => ({ user_id: userId, key_id: keyId, granularity, bucket_start: bucket, ok, rate_limited: 2, unauthorized: 1, forbidden: 0 });
    await db.insertInto('usage_counts').values([
      usage(alice, '', 'hour', at(0), 120), usage(alice, '', 'day', '2025-03-01T00:00:00.000Z', 120), usage(bob, '', 'hour', at(0), 9), usage(bob, 'key_x', 'hour', at(0), 9),
    ]).execute();
    await db.insertInto('event_sequences').values([{ user_id: alice, seq: 2 }, { user_id: bob, seq: 1 }, { user_id: gone, seq: 7 }]).execute();

    const names = await tables(db);
    const before = await snapshot(db, names);
    for (const table of ['users', 'api_keys', 'agents', 'chats', 'messages', 'webhook_endpoints', 'events', 'deliveries', 'delivery_attempts', 'idempotency_keys', 'usage_counts', 'event_sequences', 'sessions']) {
      expect(before[table]!.length, table).toBeGreaterThan(0);
    }

    // --- The upgrade, as `gatehouse serve` runs it ------------------------------------------
    expect(await migrateToLatest(handle, '0014-organizations')).toEqual(['0014-organizations']);
    if (dialect === 'sqlite') {
      await handle.close();
      handle = await open(); // a fresh connection parses the edited schema
    }
    const after = handle.db as unknown as Kysely<any>;

    // Every table of the release is still there with every row, changed only as 0014 says.
    const namesAfter = await tables(after);
    expect(namesAfter).toEqual([...names, 'audit_events', 'invitations', 'memberships', 'organizations'].sort());
    const rowsAfter = await snapshot(after, names);
    for (const table of names) {
      expect(rowsAfter[table]!.length, `${table}: rows before and after`).toBe(before[table]!.length);
      expect(rowsAfter[table]!.map(canonical).sort(), table).toEqual(before[table]!.map((row) => canonical(expectedAfter(table, row))).sort());
    }

    // Spelled out for the ones that matter most.
    const ownerOf = Object.fromEntries((await after.selectFrom('agents').select(['id', 'org_id']).execute()).map((r) => [r.id, r.org_id]));
    expect(ownerOf).toEqual({ [agents[0]!.id]: personalOrg(alice), [agents[1]!.id]: personalOrg(alice), [agents[2]!.id]: personalOrg(bob) });
    const keys = await after.selectFrom('api_keys').select(['name', 'user_id', 'org_id', 'secret_hash', 'previous_secret_hash', 'revoked_at']).orderBy('name').execute();
    const keysBefore = before.api_keys!;
    expect(keys).toEqual(['ci', 'leaked', 'rolled', 'verifier'].map((name) => {
      const k = keysBefore.find((r) => r.name === name)!;
      return { name, user_id: k.user_id, org_id: personalOrg(k.user_id as string), secret_hash: k.secret_hash, previous_secret_hash: k.previous_secret_hash, revoked_at: k.revoked_at };
    }));

    const organizations = (await after.selectFrom('organizations').selectAll().orderBy('id').execute()).map(({ updated_at, ...o }) => {
      expect(typeof updated_at).toBe('string');
      return { ...o, personal: Number(o.personal), agent_count: Number(o.agent_count), chat_count: Number(o.chat_count), api_key_count: Number(o.api_key_count), webhook_count: Number(o.webhook_count) };
    });
    const org = (id: string, name: string, extra: Row) => ({
      id: personalOrg(id), name, personal: 1, tier: 'free', limit_per_minute: null, limit_per_day: null, limit_streams: null,
      agent_count: 0, chat_count: 0, api_key_count: 0, webhook_count: 0, created_at: at(0), ...extra,
    });
    expect(organizations).toEqual([
      org(alice, 'alice', { tier: 'pro', agent_count: 2, chat_count: 2, api_key_count: 2, webhook_count: 1 }),
      org(bob, 'bob', { tier: 'enterprise', limit_per_minute: 5000, limit_per_day: 2_000_000, limit_streams: 400, agent_count: 1, chat_count: 1, api_key_count: 1, webhook_count: 1 }),
      org(carol, 'Personal', {}),
    ].sort((a, b) => a.id.localeCompare(b.id)));
    const memberships = await after.selectFrom('memberships').select(['org_id', 'user_id', 'role', 'created_at']).orderBy('user_id').execute();
    expect(memberships).toEqual([alice, bob, carol].sort().map((id) => ({ org_id: personalOrg(id), user_id: id, role: 'owner', created_at: at(0) })));
    const users = await after.selectFrom('users').selectAll().orderBy('id').execute();
    expect(users.map((u) => [u.id, u.personal_org_id, Number(u.organization_count)])).toEqual([alice, bob, carol].sort().map((id) => [id, personalOrg(id), 1]));
    for (const column of ACCOUNT_COLUMNS) expect(Object.keys(users[0]!), column).not.toContain(column);

    // The foreign keys point at organizations, with ON DELETE CASCADE.
    for (const table of WITH_FOREIGN_KEY) expect(await foreignKeysOf(after, table), table).toContainEqual({ column: 'org_id', references: 'organizations', onDelete: 'CASCADE' });
    for (const table of [...WITH_FOREIGN_KEY, 'api_keys']) expect((await foreignKeysOf(after, table)).filter((f) => f.references === 'users'), table).toEqual(table === 'api_keys' ? [{ column: 'user_id', references: 'users', onDelete: 'CASCADE' }] : []);
    expect(await foreignKeysOf(after, 'api_keys')).toContainEqual({ column: 'org_id', references: 'organizations', onDelete: 'CASCADE' });
    if (dialect === 'sqlite') {
      expect((await sql`PRAGMA foreign_key_check`.execute(after)).rows).toEqual([]);
      expect((await sql`PRAGMA integrity_check`.execute(after)).rows).toEqual([{ integrity_check: 'ok' }]);
    }
    // A row of an organization that does not exist is refused.
    await expect(after.insertInto('agents').values({ ...agent(alice, 'stray'), user_id: undefined, org_id: 'org_nope' }).execute()).rejects.toThrow(/foreign key/i);

    // Keys that were unique per account are now unique per organization, under their new column names.
    await after.insertInto('usage_counts').values({ ...usage(alice, '', 'hour', at(0), 5), user_id: undefined, org_id: personalOrg(alice) })
      .onConflict((oc) => oc.columns(['org_id', 'key_id', 'granularity', 'bucket_start']).doUpdateSet((eb) => ({ ok: sql`${eb.ref('usage_counts.ok')} + ${eb.ref('excluded.ok')}` })))
      .execute();
    expect(Number((await after.selectFrom('usage_counts').select('ok').where('org_id', '=', personalOrg(alice)).where('granularity', '=', 'hour').executeTakeFirstOrThrow()).ok)).toBe(125);
    await expect(after.insertInto('idempotency_keys').values({ org_id: personalOrg(alice), key: 'create-agent-1', request_hash: 'x', status_code: null, response_body: null, created_at: at(30), response_location: null }).execute()).rejects.toThrow();
    await after.insertInto('event_sequences').values({ org_id: personalOrg(alice), seq: 0 }).onConflict((oc) => oc.column('org_id').doNothing()).execute();
    expect(Number((await after.selectFrom('event_sequences').select('seq').where('org_id', '=', personalOrg(alice)).executeTakeFirstOrThrow()).seq)).toBe(2);

    // Deleting an organization deletes what it owns, and nothing of the others.
    const count = async (table: string, column: string, value: string) => Number((await after.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where(column, '=', value).executeTakeFirstOrThrow()).n);
    await after.deleteFrom('organizations').where('id', '=', personalOrg(bob)).execute();
    for (const table of [...WITH_FOREIGN_KEY, 'api_keys', 'memberships']) expect(await count(table, 'org_id', personalOrg(bob)), table).toBe(0);
    expect(await count('deliveries', 'org_id', personalOrg(bob)), 'deliveries (through events)').toBe(0);
    expect(Number((await after.selectFrom('delivery_attempts').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)).toBe(3); // alice's 1 + 2
    expect(await count('agents', 'org_id', personalOrg(alice))).toBe(2);
    expect(await count('messages', 'org_id', personalOrg(alice))).toBe(2);
    expect(await count('users', 'id', bob)).toBe(1); // the user is not the organization
  });

  /** The foreign keys of a table, as (column, referenced table, ON DELETE action). */
  async function foreignKeysOf(db: Kysely<any>, table: string): Promise<{ column: string; references: string; onDelete: string }[]> {
    if (dialect === 'sqlite') {
      const rows = (await sql<{ from: string; table: string; on_delete: string }>`select * from pragma_foreign_key_list(${table})`.execute(db)).rows;
      return rows.map((r) => ({ column: r.from, references: r.table, onDelete: r.on_delete }));
    }
    const rows = (await sql<{ column: string; references: string; on_delete: string }>`
      select a.attname as column, ref.relname as references, c.confdeltype as on_delete
      from pg_constraint c
      join pg_class t on t.oid = c.conrelid
      join pg_namespace n on n.oid = t.relnamespace
      join pg_class ref on ref.oid = c.confrelid
      join pg_attribute a on a.attrelid = c.conrelid and a.attnum = any(c.conkey)
      where c.contype = 'f' and n.nspname = current_schema() and t.relname = ${table}`.execute(db)).rows;
    const actions: Record<string, string> = { c: 'CASCADE', a: 'NO ACTION', r: 'RESTRICT', n: 'SET NULL', d: 'SET DEFAULT' };
    return rows.map((r) => ({ column: r.column, references: r.references, onDelete: actions[r.on_delete] ?? r.on_delete }));
  }
});
