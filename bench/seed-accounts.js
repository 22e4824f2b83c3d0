// Bulk load for the cost-growth part: SEED_USERS accounts holding SEED_AGENTS agents between
// them, written straight into a Gatehouse database the server has already migrated (and is not
// running on). Ids come from the server's own core/ids.ts, so they have its exact format and
// order; run with `node --import tsx` from the server directory (lib/growth.js does).
//   SEED_DATABASE_URL  sqlite:<file> or postgres://…   SEED_IDS_MODULE  path of server/src/core/ids.ts
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
const userRow = (i) => ({ id: newId('user'), email: `seed-${run}-${i}@example.com` });
let userIds = [];
const agentRow = (i) => ({ id: newId('agent'), user_id: userIds[i % users], name: `Seed agent ${i}` });

async function seedSqlite(file) {
  const Database = require('better-sqlite3');
  const db = new Database(file, { fileMustExist: true });
  // The server's own settings (infra/db/database.ts).
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  const passwordHash = db.prepare('select password_hash from users limit 1').get().password_hash;
  const insertUser = db.prepare(`insert into users (id, email, email_normalized, name, password_hash, tier, role, email_verified, disabled,
    limit_per_minute, limit_per_day, created_at, updated_at) values (?, ?, ?, 'Seed', ?, 'free', 'user', 1, 0, null, null, ?, ?)`);
  const insertAgent = db.prepare(`insert into agents (id, user_id, name, description, instructions, model, metadata, created_at, updated_at)
    values (?, ?, ?, '', '', 'gpt-4o', '{}', ?, ?)`);
  const inTransaction = (fn) => db.transaction((rows) => rows.forEach(fn));
  const addUsers = inTransaction((u) => insertUser.run(u.id, u.email, u.email, passwordHash, now, now));
  const addAgents = inTransaction((a) => insertAgent.run(a.id, a.user_id, a.name, now, now));
  for (const rows of batches(users, userRow)) {
    addUsers(rows);
    userIds.push(...rows.map((r) => r.id));
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
    const { rows: [{ password_hash: passwordHash }] } = await client.query('select password_hash from users limit 1');
    for (const rows of batches(users, userRow)) {
      await client.query(`insert into users (id, email, email_normalized, name, password_hash, tier, role, email_verified, disabled, created_at, updated_at)
        select id, email, email, 'Seed', $3, 'free', 'user', 1, 0, $4, $4 from unnest($1::text[], $2::text[]) as t(id, email)`,
      [rows.map((r) => r.id), rows.map((r) => r.email), passwordHash, now]);
      userIds.push(...rows.map((r) => r.id));
    }
    for (const rows of batches(agents, agentRow)) {
      await client.query(`insert into agents (id, user_id, name, description, instructions, model, metadata, created_at, updated_at)
        select id, user_id, name, '', '', 'gpt-4o', '{}', $4, $4 from unnest($1::text[], $2::text[], $3::text[]) as t(id, user_id, name)`,
      [rows.map((r) => r.id), rows.map((r) => r.user_id), rows.map((r) => r.name), now]);
    }
    // Autovacuum would analyze the new rows within a minute or so; do it now so every run plans alike.
    await client.query('analyze users, agents');
    const { rows: [counts] } = await client.query('select (select count(*) from users)::int as users, (select count(*) from agents)::int as agents');
    return counts;
  } finally {
    await client.end();
  }
}

const counts = url.startsWith('sqlite:') ? await seedSqlite(url.slice('sqlite:'.length)) : await seedPostgres(url);
console.log(JSON.stringify({ ...counts, seconds: (Date.now() - started) / 1000 }));
