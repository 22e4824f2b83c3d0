// Bulk load for the cost-growth part: SEED_USERS accounts holding SEED_AGENTS agents between
// them, written straight into a Gatehouse database the server has already migrated (and is not
// running on). Ids come from the server's own kernel/ids.ts, so they have its exact format and
// order; run with `node --import tsx` from the server directory (lib/growth.js does).
// Each account is what registering makes since organizations (migration 0014): the user, its
// personal organization (free tier, holding its agents: agent_count counts them) and the user's
// owner membership, the user's personal_org_id naming it; the agents belong to the organization
// (org_id). On a database from before that migration (a release measured with --server-root),
// the user holds the tier, the counter and the agents (user_id), as it did then.
//   SEED_DATABASE_URL  sqlite:<file> or postgres://…   SEED_IDS_MODULE  path of server/src/kernel/ids.ts
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const url = process.env.SEED_DATABASE_URL;
const users = Number(process.env.SEED_USERS);
const agents = Number(process.env.SEED_AGENTS);
const { newId } = await import(pathToFileURL(process.env.SEED_IDS_MODULE).href);
const require = createRequire(join(process.cwd(), 'package.json')); // the server's dependencies
const BATCH = 20_000;
const started = Date.now();
const now = new Date().toISOString();
const run = Math.random().toString(36).slice(2, 8);

/** Agents go round-robin over the accounts, so consecutive ids belong to different accounts. */
function* batches(total, make) {
  for (let from = 0; from < total; from += BATCH) {
    const rows = [];
    for (let i = from; i < Math.min(total, from + BATCH); i++) rows.push(make(i));
    yield rows;
  }
}
/** Agents of the i-th account: the round-robin gives the first `agents % users` accounts one more. */
const agentsOf = (i) => Math.floor(agents / users) + (i < agents % users ? 1 : 0);
const userRow = (i) => ({ id: newId('user'), orgId: newId('organization'), email: `seed-${run}-${i}@example.com`, agentCount: agentsOf(i) });
/** Who owns each account's agents: its personal organization, or the user before organizations. */
let ownerIds = [];
const agentRow = (i) => ({ id: newId('agent'), owner: ownerIds[i % users], name: `Seed agent ${i}` });

async function seedSqlite(file) {
  const Database = require('better-sqlite3');
  const db = new Database(file, { fileMustExist: true });
  // The server's own settings (kernel/db/database.ts).
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  const teams = db.prepare("select 1 from pragma_table_info('agents') where name = 'org_id'").get() !== undefined;
  const passwordHash = db.prepare('select password_hash from users limit 1').get().password_hash;
  const insertAgent = db.prepare(`insert into agents (id, ${teams ? 'org_id' : 'user_id'}, name, description, instructions, model, metadata, created_at, updated_at)
    values (?, ?, ?, '', '', 'gpt-4o', '{}', ?, ?)`);
  const inTransaction = (fn) => db.transaction((rows) => rows.forEach(fn));
  let addUsers;
  if (teams) {
    const insertOrganization = db.prepare(`insert into organizations (id, name, personal, tier, limit_per_minute, limit_per_day, limit_streams,
      agent_count, chat_count, api_key_count, webhook_count, created_at, updated_at) values (?, 'Seed', 1, 'free', null, null, null, ?, 0, 0, 0, ?, ?)`);
    const insertUser = db.prepare(`insert into users (id, email, email_normalized, name, password_hash, role, email_verified, disabled,
      personal_org_id, organization_count, created_at, updated_at) values (?, ?, ?, 'Seed', ?, 'user', 1, 0, ?, 1, ?, ?)`);
    const insertMembership = db.prepare(`insert into memberships (org_id, user_id, role, created_at) values (?, ?, 'owner', ?)`);
    addUsers = inTransaction((u) => {
      insertOrganization.run(u.orgId, u.agentCount, now, now);
      insertUser.run(u.id, u.email, u.email, passwordHash, u.orgId, now, now);
      insertMembership.run(u.orgId, u.id, now);
    });
  } else {
    const insertUser = db.prepare(`insert into users (id, email, email_normalized, name, password_hash, tier, role, email_verified, disabled,
      limit_per_minute, limit_per_day, agent_count, created_at, updated_at) values (?, ?, ?, 'Seed', ?, 'free', 'user', 1, 0, null, null, ?, ?, ?)`);
    addUsers = inTransaction((u) => insertUser.run(u.id, u.email, u.email, passwordHash, u.agentCount, now, now));
  }
  const addAgents = inTransaction((a) => insertAgent.run(a.id, a.owner, a.name, now, now));
  for (const rows of batches(users, userRow)) {
    addUsers(rows);
    ownerIds.push(...rows.map((r) => (teams ? r.orgId : r.id)));
  }
  for (const rows of batches(agents, agentRow)) addAgents(rows);
  const counts = db.prepare('select (select count(*) from users) as users, (select count(*) from agents) as agents').get();
  db.close(); // the last connection checkpoints the WAL into the file
  return counts;
}

async function seedPostgres(connectionString) {
  const pg = require('pg');
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const teams = (await client.query("select 1 from information_schema.columns where table_schema = current_schema() and table_name = 'agents' and column_name = 'org_id'")).rowCount > 0;
    const { rows: [{ password_hash: passwordHash }] } = await client.query('select password_hash from users limit 1');
    for (const rows of batches(users, userRow)) {
      const [ids, orgIds, emails, agentCounts] = [rows.map((r) => r.id), rows.map((r) => r.orgId), rows.map((r) => r.email), rows.map((r) => r.agentCount)];
      if (teams) {
        await client.query('begin');
        await client.query(`insert into organizations (id, name, personal, tier, agent_count, created_at, updated_at)
          select id, 'Seed', 1, 'free', agent_count, $3, $3 from unnest($1::text[], $2::int[]) as t(id, agent_count)`, [orgIds, agentCounts, now]);
        await client.query(`insert into users (id, email, email_normalized, name, password_hash, role, email_verified, disabled, personal_org_id, organization_count, created_at, updated_at)
          select id, email, email, 'Seed', $4, 'user', 1, 0, org_id, 1, $5, $5 from unnest($1::text[], $2::text[], $3::text[]) as t(id, email, org_id)`,
        [ids, emails, orgIds, passwordHash, now]);
        await client.query(`insert into memberships (org_id, user_id, role, created_at) select org_id, user_id, 'owner', $3 from unnest($1::text[], $2::text[]) as t(org_id, user_id)`,
          [orgIds, ids, now]);
        await client.query('commit');
      } else {
        await client.query(`insert into users (id, email, email_normalized, name, password_hash, tier, role, email_verified, disabled, agent_count, created_at, updated_at)
          select id, email, email, 'Seed', $4, 'free', 'user', 1, 0, agent_count, $5, $5 from unnest($1::text[], $2::text[], $3::int[]) as t(id, email, agent_count)`,
        [ids, emails, agentCounts, passwordHash, now]);
      }
      ownerIds.push(...(teams ? orgIds : ids));
    }
    for (const rows of batches(agents, agentRow)) {
      await client.query(`insert into agents (id, ${teams ? 'org_id' : 'user_id'}, name, description, instructions, model, metadata, created_at, updated_at)
        select id, owner, name, '', '', 'gpt-4o', '{}', $4, $4 from unnest($1::text[], $2::text[], $3::text[]) as t(id, owner, name)`,
      [rows.map((r) => r.id), rows.map((r) => r.owner), rows.map((r) => r.name), now]);
    }
    // Autovacuum would analyze the new rows within a minute or so; do it now so every run plans alike.
    await client.query(`analyze users, agents${teams ? ', organizations, memberships' : ''}`);
    const { rows: [counts] } = await client.query('select (select count(*) from users)::int as users, (select count(*) from agents)::int as agents');
    return counts;
  } finally {
    await client.end();
  }
}

const counts = url.startsWith('sqlite:') ? await seedSqlite(url.slice('sqlite:'.length)) : await seedPostgres(url);
console.log(JSON.stringify({ ...counts, seconds: (Date.now() - started) / 1000 }));
