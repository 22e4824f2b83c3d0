import type { Kysely, Selectable } from 'kysely';
import { AppError, fieldError } from '../../core/errors.js';
import { toPage } from '../../core/pagination.js';
import { isoTime, type Clock } from '../../infra/clock.js';
import type { ChatsTable, Database, MessagesTable } from '../../infra/db/schema.js';
import { isId, newId } from '../../core/ids.js';
import { lockAccount, releaseCapacity, takeCapacity, type Caps } from '../accounts/account-caps.js';
import type { DialectName } from '../../infra/db/database.js';
import { recordEvent } from '../events/event-outbox.js';
import { eachParam, preparedQuery } from '../../infra/db/prepared-queries.js';
import { type CreateChatBody, type CreateMessageBody } from './chats.schemas.js';

export type ChatRow = Selectable<ChatsTable>;
export type MessageRow = Selectable<MessagesTable>;

export const presentChat = (c: ChatRow) => ({ id: c.id, agent_id: c.agent_id, title: c.title, created_at: c.created_at, updated_at: c.updated_at });
export const presentMessage = (m: MessageRow) => ({ id: m.id, chat_id: m.chat_id, role: m.role as 'user' | 'assistant', content: m.content, created_at: m.created_at });

type Owned = { userId: string };
type Page = Owned & { limit: number };
const findChatQuery = preparedQuery((q, $: Owned & { id: string }) => q.selectFrom('chats').selectAll().where('user_id', '=', $.userId).where('id', '=', $.id));
// A list's filters (agent, cursor) each change the SQL: one prepared query per combination.
const chatsQuery = {
  newest: preparedQuery((q, $: Page) => q.selectFrom('chats').selectAll().where('user_id', '=', $.userId).orderBy('id', 'desc').limit($.limit)),
  before: preparedQuery((q, $: Page & { cursor: string }) =>
    q.selectFrom('chats').selectAll().where('user_id', '=', $.userId).where('id', '<', $.cursor).orderBy('id', 'desc').limit($.limit)),
  newestOfAgent: preparedQuery((q, $: Page & { agentId: string }) =>
    q.selectFrom('chats').selectAll().where('user_id', '=', $.userId).where('agent_id', '=', $.agentId).orderBy('id', 'desc').limit($.limit)),
  beforeOfAgent: preparedQuery((q, $: Page & { agentId: string; cursor: string }) =>
    q.selectFrom('chats').selectAll().where('user_id', '=', $.userId).where('agent_id', '=', $.agentId).where('id', '<', $.cursor).orderBy('id', 'desc').limit($.limit)),
};
const messagesQuery = {
  newest: preparedQuery((q, $: Page & { chatId: string }) =>
    q.selectFrom('messages').selectAll().where('chat_id', '=', $.chatId).where('user_id', '=', $.userId).orderBy('id', 'desc').limit($.limit)),
  before: preparedQuery((q, $: Page & { chatId: string; cursor: string }) =>
    q.selectFrom('messages').selectAll().where('chat_id', '=', $.chatId).where('user_id', '=', $.userId).where('id', '<', $.cursor).orderBy('id', 'desc').limit($.limit)),
};
/** Finds the owner's chat, takes a place under the per-chat cap and stamps updated_at, in one statement. */
const takeMessagePlace = preparedQuery((q, $: Owned & { chatId: string; cap: number; now: string }) =>
  q.updateTable('chats').set((eb) => ({ message_count: eb('message_count', '+', 1), updated_at: $.now }))
    .where('id', '=', $.chatId).where('user_id', '=', $.userId).where('message_count', '<', $.cap).returning('agent_id'));
const MESSAGE_COLUMNS = ['id', 'chat_id', 'user_id', 'role', 'content', 'created_at'] as const satisfies readonly (keyof MessageRow)[];
const insertMessage = preparedQuery((q, $: MessageRow) => q.insertInto('messages').values(eachParam($, MESSAGE_COLUMNS)));

/**
 * Chats hold the conversation with one agent. The service stores and routes: a user message
 * becomes a `chat.message.created` event for the agent's runtime, which answers by posting an
 * assistant message with an API key. No model runs here.
 */
export function createChatsService(deps: { db: Kysely<Database>; dialect: DialectName; clock: Clock; caps: Pick<Caps, 'chatsPerAccount' | 'messagesPerChat'>; onEvent: () => void }) {
  const { db, clock } = deps;
  const chatNotFound = () => new AppError('not_found', 'No chat with this id.');
  const findChat = (q: Kysely<Database>, userId: string, id: string) => findChatQuery.first({ userId, id }, q);

  return {
    async create(userId: string, body: CreateChatBody): Promise<ChatRow> {
      const now = isoTime(clock.now());
      const unknownAgent = () => fieldError('/agent_id', 'not_found', 'agent_id does not name an agent of this account.');
      if (!isId('agent', body.agent_id)) throw unknownAgent();
      const row: ChatRow = { id: newId('chat'), user_id: userId, agent_id: body.agent_id, title: body.title?.trim() || null, created_at: now, updated_at: now, message_count: 0 };
      const { deliveries } = await db.transaction().execute(async (trx) => {
        // The account first (lockAccount): an agent deleted meanwhile is then gone when we look.
        await takeCapacity(trx, userId, 'chat_count', deps.caps.chatsPerAccount, 'chats');
        const agent = await trx.selectFrom('agents').select('id').where('user_id', '=', userId).where('id', '=', body.agent_id).executeTakeFirst();
        if (!agent) throw unknownAgent();
        await trx.insertInto('chats').values(row).execute();
        return recordEvent(trx, clock, { userId, type: 'chat.created', data: presentChat(row) });
      });
      if (deliveries) deps.onEvent();
      return row;
    },

    async get(userId: string, id: string): Promise<ChatRow> {
      const row = await findChat(db, userId, id);
      if (!row) throw chatNotFound();
      return row;
    },

    async list(userId: string, limit: number, cursor?: string, agentId?: string) {
      const page = { userId, limit: limit + 1 };
      const rows = agentId
        ? await (cursor ? chatsQuery.beforeOfAgent.all({ ...page, agentId, cursor }, db) : chatsQuery.newestOfAgent.all({ ...page, agentId }, db))
        : await (cursor ? chatsQuery.before.all({ ...page, cursor }, db) : chatsQuery.newest.all(page, db));
      return toPage(rows, limit);
    },

    async delete(userId: string, id: string): Promise<void> {
      const { deliveries } = await db.transaction().execute(async (trx) => {
        await lockAccount(trx, deps.dialect, userId);
        const result = await trx.deleteFrom('chats').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
        if (Number(result.numDeletedRows) === 0) throw chatNotFound();
        await releaseCapacity(trx, userId, 'chat_count');
        return recordEvent(trx, clock, { userId, type: 'chat.deleted', data: { id } });
      });
      if (deliveries) deps.onEvent();
    },

    /**
     * One conditional UPDATE finds the owner's chat, takes a place under the per-chat cap and
     * stamps updated_at; the message and its event follow. Only a refusal looks further (404 or 422).
     */
    async postMessage(userId: string, chatId: string, body: CreateMessageBody): Promise<MessageRow> {
      const now = isoTime(clock.now());
      const row: MessageRow = { id: newId('message'), chat_id: chatId, user_id: userId, role: body.role, content: body.content, created_at: now };
      const cap = deps.caps.messagesPerChat;
      const { deliveries } = await db.transaction().execute(async (trx) => {
        const chat = await takeMessagePlace.first({ userId, chatId, cap, now }, trx);
        if (!chat) {
          if (!(await findChat(trx, userId, chatId))) throw chatNotFound();
          throw new AppError('limit_reached', `A chat can hold at most ${cap} messages; start a new chat.`, { limit: cap });
        }
        await insertMessage.run(row, trx);
        return recordEvent(trx, clock, { userId, type: 'chat.message.created', data: { ...presentMessage(row), agent_id: chat.agent_id } });
      });
      if (deliveries) deps.onEvent();
      return row;
    },

    /** Carries the owner in the query; only an empty page asks whether the chat is there at all. */
    async listMessages(userId: string, chatId: string, limit: number, cursor?: string) {
      const page = { userId, chatId, limit: limit + 1 };
      const rows = cursor ? await messagesQuery.before.all({ ...page, cursor }, db) : await messagesQuery.newest.all(page, db);
      if (rows.length === 0 && !(await findChat(db, userId, chatId))) throw chatNotFound();
      return toPage(rows, limit);
    },
  };
}
export type ChatsService = ReturnType<typeof createChatsService>;
