// The ceiling of each platform route: a bare Fastify server doing the same SQL as Gatehouse on
// the same database, with prepared statements and nothing else (no authentication, no limiter,
// no hooks, no logger, no validation). It answers for one account, CEILING_USER_ID.
// Run from the repository root with `node --import tsx bench/ceiling-server.js` (ids come from
// the server's own core/ids.ts, so what it writes sorts among Gatehouse's rows as theirs do).
//   CEILING_DATABASE_URL  sqlite:<file> or postgres://…  (the database Gatehouse migrated)
//   CEILING_USER_ID       the account every route answers for
//   PORT, HOST
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const serverPackage = fileURLToPath(new URL('../server/package.json', import.meta.url));
const require = createRequire(serverPackage);
const Fastify = require('fastify');
const { newId } = await import(new URL('../server/src/core/ids.ts', import.meta.url).href);

const userId = process.env.CEILING_USER_ID;
const url = process.env.CEILING_DATABASE_URL;
if (!userId || !url) throw new Error('CEILING_USER_ID and CEILING_DATABASE_URL are required');
const store = url.startsWith('sqlite:') ? sqliteStore(url.slice('sqlite:'.length)) : pgStore(url);
const CAP = 2_147_483_647; // the caps Gatehouse checks, as one more condition in the same UPDATE

/** Every query of the routes below, prepared once, on Gatehouse's SQLite settings. */
function sqliteStore(path) {
  const Database = require('better-sqlite3');
  const db = new Database(path, { fileMustExist: true });
  for (const pragma of ['journal_mode = WAL', 'synchronous = NORMAL', 'busy_timeout = 5000', 'foreign_keys = ON', 'cache_size = -65536', 'mmap_size = 268435456']) db.pragma(pragma);
  const q = {
    agent: db.prepare('select * from agents where user_id = ? and id = ?'),
    agents: db.prepare('select * from agents where user_id = ? order by id desc limit ?'),
    chats: db.prepare('select * from chats where user_id = ? order by id desc limit ?'),
    chat: db.prepare('select * from chats where user_id = ? and id = ?'),
    messages: db.prepare('select * from messages where chat_id = ? and user_id = ? order by id desc limit ?'),
    takeMessage: db.prepare('update chats set message_count = message_count + 1, updated_at = ? where id = ? and user_id = ? and message_count < ? returning agent_id'),
    insertMessage: db.prepare('insert into messages (id, chat_id, user_id, role, content, created_at) values (?, ?, ?, ?, ?, ?)'),
    takeAgent: db.prepare('update users set agent_count = agent_count + 1 where id = ? and agent_count < ?'),
    insertAgent: db.prepare('insert into agents (id, user_id, name, description, instructions, model, metadata, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)'),
    insertEvent: db.prepare('insert into events (id, user_id, type, data, created_at) values (?, ?, ?, ?, ?)'),
  };
  const postMessage = db.transaction((chatId, message) => {
    const chat = q.takeMessage.get(message.created_at, chatId, userId, CAP);
    if (!chat) return null;
    q.insertMessage.run(message.id, chatId, userId, message.role, message.content, message.created_at);
    q.insertEvent.run(newId('event'), userId, 'chat.message.created', JSON.stringify({ ...message, agent_id: chat.agent_id }), message.created_at);
    return message;
  });
  const createAgent = db.transaction((agent) => {
    if (q.takeAgent.run(userId, CAP).changes === 0) return null;
    q.insertAgent.run(agent.id, userId, agent.name, agent.description, agent.instructions, agent.model, agent.metadata, agent.created_at, agent.updated_at);
    q.insertEvent.run(newId('event'), userId, 'agent.created', JSON.stringify(presentAgent(agent)), agent.created_at);
    return agent;
  });
  return {
    agent: async (id) => q.agent.get(userId, id),
    agents: async (limit) => q.agents.all(userId, limit + 1),
    chats: async (limit) => q.chats.all(userId, limit + 1),
    messages: async (chatId, limit) => {
      const rows = q.messages.all(chatId, userId, limit + 1);
      return rows.length === 0 && !q.chat.get(userId, chatId) ? null : rows;
    },
    postMessage: async (chatId, message) => postMessage(chatId, message),
    createAgent: async (agent) => createAgent(agent),
  };
}

/** The same statements on PostgreSQL, each a named (prepared) query, over a pool like Gatehouse's. */
function pgStore(connectionString) {
  const pg = require('pg');
  const pool = new pg.Pool({ connectionString, max: 10 });
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
    agent: async (id) => (await query(pool, 'agent', 'select * from agents where user_id = $1 and id = $2', [userId, id]))[0],
    agents: (limit) => query(pool, 'agents', 'select * from agents where user_id = $1 order by id desc limit $2', [userId, limit + 1]),
    chats: (limit) => query(pool, 'chats', 'select * from chats where user_id = $1 order by id desc limit $2', [userId, limit + 1]),
    messages: async (chatId, limit) => {
      const rows = await query(pool, 'messages', 'select * from messages where chat_id = $1 and user_id = $2 order by id desc limit $3', [chatId, userId, limit + 1]);
      if (rows.length > 0) return rows;
      return (await query(pool, 'chat', 'select * from chats where user_id = $1 and id = $2', [userId, chatId])).length ? rows : null;
    },
    postMessage: (chatId, message) =>
      inTransaction(async (client) => {
        const [chat] = await query(client, 'take-message', 'update chats set message_count = message_count + 1, updated_at = $1 where id = $2 and user_id = $3 and message_count < $4 returning agent_id', [message.created_at, chatId, userId, CAP]);
        if (!chat) return null;
        await query(client, 'insert-message', 'insert into messages (id, chat_id, user_id, role, content, created_at) values ($1, $2, $3, $4, $5, $6)', [message.id, chatId, userId, message.role, message.content, message.created_at]);
        await query(client, 'insert-event', 'insert into events (id, user_id, type, data, created_at) values ($1, $2, $3, $4, $5)', [newId('event'), userId, 'chat.message.created', JSON.stringify({ ...message, agent_id: chat.agent_id }), message.created_at]);
        return message;
      }),
    createAgent: (agent) =>
      inTransaction(async (client) => {
        const taken = await client.query({ name: 'take-agent', text: 'update users set agent_count = agent_count + 1 where id = $1 and agent_count < $2', values: [userId, CAP] });
        if (taken.rowCount === 0) return null;
        await query(client, 'insert-agent', 'insert into agents (id, user_id, name, description, instructions, model, metadata, created_at, updated_at) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)', [agent.id, userId, agent.name, agent.description, agent.instructions, agent.model, agent.metadata, agent.created_at, agent.updated_at]);
        await query(client, 'insert-event', 'insert into events (id, user_id, type, data, created_at) values ($1, $2, $3, $4, $5)', [newId('event'), userId, 'agent.created', JSON.stringify(presentAgent(agent)), agent.created_at]);
        return agent;
      }),
  };
}

function presentAgent(row) {
  return { id: row.id, name: row.name, description: row.description, instructions: row.instructions, model: row.model, metadata: JSON.parse(row.metadata), created_at: row.created_at, updated_at: row.updated_at };
}
const presentChat = (c) => ({ id: c.id, agent_id: c.agent_id, title: c.title, created_at: c.created_at, updated_at: c.updated_at });
const presentMessage = (m) => ({ id: m.id, chat_id: m.chat_id, role: m.role, content: m.content, created_at: m.created_at });
const page = (rows, limit, present) => ({ data: rows.slice(0, limit).map(present), next_cursor: rows.length > limit ? rows[limit - 1].id : null });
const limitOf = (request) => Math.min(100, Math.max(1, Number(request.query.limit ?? 20) || 20));

const app = Fastify({ logger: false });
app.get('/v1/agents/:id', async (request, reply) => {
  const row = await store.agent(request.params.id);
  return row ? presentAgent(row) : reply.code(404).send({ code: 'not_found' });
});
app.get('/v1/agents', async (request) => page(await store.agents(limitOf(request)), limitOf(request), presentAgent));
app.get('/v1/chats', async (request) => page(await store.chats(limitOf(request)), limitOf(request), presentChat));
app.get('/v1/chats/:id/messages', async (request, reply) => {
  const rows = await store.messages(request.params.id, limitOf(request));
  return rows ? page(rows, limitOf(request), presentMessage) : reply.code(404).send({ code: 'not_found' });
});
app.post('/v1/chats/:id/messages', async (request, reply) => {
  const message = { id: newId('message'), chat_id: request.params.id, role: request.body.role, content: request.body.content, created_at: new Date().toISOString() };
  const created = await store.postMessage(request.params.id, message);
  return created ? reply.code(201).send(presentMessage(created)) : reply.code(404).send({ code: 'not_found' });
});
app.post('/v1/agents', async (request, reply) => {
  const now = new Date().toISOString();
  const { name, model, description = '', instructions = '', metadata = {} } = request.body;
  const agent = { id: newId('agent'), name, model, description, instructions, metadata: JSON.stringify(metadata), created_at: now, updated_at: now };
  const created = await store.createAgent(agent);
  return created ? reply.code(201).send(presentAgent(created)) : reply.code(422).send({ code: 'limit_reached' });
});
app.get('/healthz', async () => ({ status: 'ok' }));
await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });

process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
process.on('SIGINT', () => void app.close().then(() => process.exit(0)));
