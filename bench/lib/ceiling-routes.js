// The ceiling of each platform route, as routes any Fastify instance can carry: the same SQL as
// Gatehouse on the same database, with prepared statements and nothing else (no authentication,
// no limiter, no hooks, no logger, no validation). It answers for one organization: every query is
// scoped by org_id and the caps are counters of the organization's row, as Gatehouse's services do
// since issue 21 (migration 0014). On a database from before it (owner column user_id, counters on
// users: a release compared with `--compare`) it answers for a user instead.
// Two servers carry these routes: bench/ceiling-server.js, a process of its own (the ceiling), and
// lib/in-process-reference.js, a bare Fastify inside the Gatehouse process (the in-process
// reference). Both load this file, so both run exactly the same code.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const CAP = 2_147_483_647; // the caps Gatehouse checks, as one more condition in the same UPDATE

/**
 * The URL of the server's ids module in `serverDir` (its server/): src/kernel/ids.ts, or
 * src/core/ids.ts in a server from before the kernel (--server-root, --compare).
 */
export function idsModule(serverDir) {
  // The compiled server's (dist/), or in a server from before the build, its TypeScript (run through tsx).
  const candidates = [join(serverDir, 'dist', 'kernel', 'ids.js'), ...['kernel', 'core'].map((d) => join(serverDir, 'src', d, 'ids.ts'))];
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`no dist/kernel/ids.js, src/kernel/ids.ts or src/core/ids.ts in ${serverDir}`);
  return pathToFileURL(found).href;
}

/**
 * Who owns the rows, in the schema the database has: `owner` the column every owned table is
 * scoped by, `holder` the table whose row counts what the owner holds (the caps), `id` the owner.
 */
function ownership(teams, { orgId, userId }) {
  const id = teams ? orgId : userId;
  if (!id) throw new Error(teams ? 'an organization id is required (the database has organizations)' : 'a user id is required (the database predates organizations)');
  return teams ? { owner: 'org_id', holder: 'organizations', id } : { owner: 'user_id', holder: 'users', id };
}

/**
 * The store of every route below on `url` (sqlite:<file> or postgres://…), for `owners`
 * ({ orgId, userId }: the one the schema needs). `require` loads better-sqlite3 and pg (the
 * server's own); `newId` is the server's (see idsModule).
 */
export async function openCeilingStore(url, owners, { require, newId }) {
  return url.startsWith('sqlite:') ? sqliteStore(url.slice('sqlite:'.length), owners, require, newId) : pgStore(url, owners, require, newId);
}

/** Every query of the routes below, prepared once, on Gatehouse's SQLite settings. */
function sqliteStore(path, owners, require, newId) {
  const Database = require('better-sqlite3');
  const db = new Database(path, { fileMustExist: true });
  for (const pragma of ['journal_mode = WAL', 'synchronous = NORMAL', 'busy_timeout = 5000', 'foreign_keys = ON', 'cache_size = -65536', 'mmap_size = 268435456']) db.pragma(pragma);
  const { owner, holder, id: ownerId } = ownership(db.prepare("select 1 from pragma_table_info('agents') where name = 'org_id'").get() !== undefined, owners);
  const q = {
    agent: db.prepare(`select * from agents where ${owner} = ? and id = ?`),
    agents: db.prepare(`select * from agents where ${owner} = ? order by id desc limit ?`),
    chats: db.prepare(`select * from chats where ${owner} = ? order by id desc limit ?`),
    chat: db.prepare(`select * from chats where ${owner} = ? and id = ?`),
    messages: db.prepare(`select * from messages where chat_id = ? and ${owner} = ? order by id desc limit ?`),
    takeMessage: db.prepare(`update chats set message_count = message_count + 1, updated_at = ? where id = ? and ${owner} = ? and message_count < ? returning agent_id`),
    insertMessage: db.prepare(`insert into messages (id, chat_id, ${owner}, role, content, created_at) values (?, ?, ?, ?, ?, ?)`),
    takeAgent: db.prepare(`update ${holder} set agent_count = agent_count + 1 where id = ? and agent_count < ?`),
    insertAgent: db.prepare(`insert into agents (id, ${owner}, name, description, instructions, model, metadata, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    insertEvent: db.prepare(`insert into events (id, ${owner}, type, data, created_at) values (?, ?, ?, ?, ?)`),
  };
  const postMessage = db.transaction((chatId, message) => {
    const chat = q.takeMessage.get(message.created_at, chatId, ownerId, CAP);
    if (!chat) return null;
    q.insertMessage.run(message.id, chatId, ownerId, message.role, message.content, message.created_at);
    q.insertEvent.run(newId('event'), ownerId, 'chat.message.created', JSON.stringify({ ...message, agent_id: chat.agent_id }), message.created_at);
    return message;
  });
  const createAgent = db.transaction((agent) => {
    if (q.takeAgent.run(ownerId, CAP).changes === 0) return null;
    q.insertAgent.run(agent.id, ownerId, agent.name, agent.description, agent.instructions, agent.model, agent.metadata, agent.created_at, agent.updated_at);
    q.insertEvent.run(newId('event'), ownerId, 'agent.created', JSON.stringify(presentAgent(agent)), agent.created_at);
    return agent;
  });
  return {
    agent: async (id) => q.agent.get(ownerId, id),
    agents: async (limit) => q.agents.all(ownerId, limit + 1),
    chats: async (limit) => q.chats.all(ownerId, limit + 1),
    messages: async (chatId, limit) => {
      const rows = q.messages.all(chatId, ownerId, limit + 1);
      return rows.length === 0 && !q.chat.get(ownerId, chatId) ? null : rows;
    },
    postMessage: async (chatId, message) => postMessage(chatId, message),
    createAgent: async (agent) => createAgent(agent),
    close: async () => db.close(),
  };
}

/** The same statements on PostgreSQL, each a named (prepared) query, over a pool like Gatehouse's. */
async function pgStore(connectionString, owners, require, newId) {
  const pg = require('pg');
  const pool = new pg.Pool({ connectionString, max: 10 });
  const teams = (await pool.query("select 1 from information_schema.columns where table_schema = current_schema() and table_name = 'agents' and column_name = 'org_id'")).rowCount > 0;
  const { owner, holder, id: ownerId } = ownership(teams, owners);
  const query = (client, name, text, values) => client.query({ name, text, values }).then((r) => r.rows);
  const inTransaction = async (work) => {
    const client = await pool.connect();
    try {
      await client.query('begin');
      const result = await work(client);
      await client.query(result === null ? 'rollback' : 'commit');
      return result;
    } catch (error) {
      await client.query('rollback');
      throw error;
    } finally {
      client.release();
    }
  };
  return {
    agent: async (id) => (await query(pool, 'agent', `select * from agents where ${owner} = $1 and id = $2`, [ownerId, id]))[0],
    agents: (limit) => query(pool, 'agents', `select * from agents where ${owner} = $1 order by id desc limit $2`, [ownerId, limit + 1]),
    chats: (limit) => query(pool, 'chats', `select * from chats where ${owner} = $1 order by id desc limit $2`, [ownerId, limit + 1]),
    messages: async (chatId, limit) => {
      const rows = await query(pool, 'messages', `select * from messages where chat_id = $1 and ${owner} = $2 order by id desc limit $3`, [chatId, ownerId, limit + 1]);
      if (rows.length > 0) return rows;
      return (await query(pool, 'chat', `select * from chats where ${owner} = $1 and id = $2`, [ownerId, chatId])).length ? rows : null;
    },
    postMessage: (chatId, message) =>
      inTransaction(async (client) => {
        const [chat] = await query(client, 'take-message', `update chats set message_count = message_count + 1, updated_at = $1 where id = $2 and ${owner} = $3 and message_count < $4 returning agent_id`, [message.created_at, chatId, ownerId, CAP]);
        if (!chat) return null;
        await query(client, 'insert-message', `insert into messages (id, chat_id, ${owner}, role, content, created_at) values ($1, $2, $3, $4, $5, $6)`, [message.id, chatId, ownerId, message.role, message.content, message.created_at]);
        await query(client, 'insert-event', `insert into events (id, ${owner}, type, data, created_at) values ($1, $2, $3, $4, $5)`, [newId('event'), ownerId, 'chat.message.created', JSON.stringify({ ...message, agent_id: chat.agent_id }), message.created_at]);
        return message;
      }),
    createAgent: (agent) =>
      inTransaction(async (client) => {
        const taken = await client.query({ name: 'take-agent', text: `update ${holder} set agent_count = agent_count + 1 where id = $1 and agent_count < $2`, values: [ownerId, CAP] });
        if (taken.rowCount === 0) return null;
        await query(client, 'insert-agent', `insert into agents (id, ${owner}, name, description, instructions, model, metadata, created_at, updated_at) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [agent.id, ownerId, agent.name, agent.description, agent.instructions, agent.model, agent.metadata, agent.created_at, agent.updated_at]);
        await query(client, 'insert-event', `insert into events (id, ${owner}, type, data, created_at) values ($1, $2, $3, $4, $5)`, [newId('event'), ownerId, 'agent.created', JSON.stringify(presentAgent(agent)), agent.created_at]);
        return agent;
      }),
    close: () => pool.end(),
  };
}

function presentAgent(row) {
  return { id: row.id, name: row.name, description: row.description, instructions: row.instructions, model: row.model, metadata: JSON.parse(row.metadata), created_at: row.created_at, updated_at: row.updated_at };
}
const presentChat = (c) => ({ id: c.id, agent_id: c.agent_id, title: c.title, created_at: c.created_at, updated_at: c.updated_at });
const presentMessage = (m) => ({ id: m.id, chat_id: m.chat_id, role: m.role, content: m.content, created_at: m.created_at });
const page = (rows, limit, present) => ({ data: rows.slice(0, limit).map(present), next_cursor: rows.length > limit ? rows[limit - 1].id : null });
const limitOf = (request) => Math.min(100, Math.max(1, Number(request.query.limit ?? 20) || 20));

/**
 * The ceiling's routes on `app` (a bare Fastify instance). `store` is `{ current }`, the store of
 * openCeilingStore, and `ids` `{ current }`, the server's `newId`: both set before the first
 * request (the in-process reference opens its store only once Gatehouse has migrated the database
 * and the bench account exists, and loads the server's ids module then: dist/kernel/ids.js, or ids.ts in a server from before the build, once Gatehouse has registered tsx).
 */
export function registerCeilingRoutes(app, store, ids) {
  app.get('/v1/agents/:id', async (request, reply) => {
    const row = await store.current.agent(request.params.id);
    return row ? presentAgent(row) : reply.code(404).send({ code: 'not_found' });
  });
  app.get('/v1/agents', async (request) => page(await store.current.agents(limitOf(request)), limitOf(request), presentAgent));
  app.get('/v1/chats', async (request) => page(await store.current.chats(limitOf(request)), limitOf(request), presentChat));
  app.get('/v1/chats/:id/messages', async (request, reply) => {
    const rows = await store.current.messages(request.params.id, limitOf(request));
    return rows ? page(rows, limitOf(request), presentMessage) : reply.code(404).send({ code: 'not_found' });
  });
  app.post('/v1/chats/:id/messages', async (request, reply) => {
    const message = { id: ids.current('message'), chat_id: request.params.id, role: request.body.role, content: request.body.content, created_at: new Date().toISOString() };
    const created = await store.current.postMessage(request.params.id, message);
    return created ? reply.code(201).send(presentMessage(created)) : reply.code(404).send({ code: 'not_found' });
  });
  app.post('/v1/agents', async (request, reply) => {
    const now = new Date().toISOString();
    const { name, model, description = '', instructions = '', metadata = {} } = request.body;
    const agent = { id: ids.current('agent'), name, model, description, instructions, metadata: JSON.stringify(metadata), created_at: now, updated_at: now };
    const created = await store.current.createAgent(agent);
    return created ? reply.code(201).send(presentAgent(created)) : reply.code(422).send({ code: 'limit_reached' });
  });
  app.get('/healthz', async () => ({ status: 'ok' }));
}
