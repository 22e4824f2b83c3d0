import type { Kysely, Selectable } from 'kysely';
import { AppError, fieldError } from '../../kernel/errors.js';
import { toPage } from '../../kernel/pagination.js';
import { isoTime, type Clock } from '../../kernel/clock.js';
import type { ChatsTable, Database, MessagesTable } from '../../kernel/db/schema.js';
import { isId, newId } from '../../kernel/ids.js';
import { lockOrganization, releaseCapacity, takeCapacity, type Caps } from '../../access/index.js';
import type { DialectName } from '../../kernel/db/database.js';
import { recordEvent } from '../../kernel/events/event-outbox.js';
import { redactChatEvents } from '../../kernel/events/event-redaction.js';
import type { OnEventsCommitted } from '../../kernel/events/event-signal.js';
import { eachParam, preparedQuery } from '../../kernel/db/prepared-queries.js';
import { CHAT_LIMITS, type CreateChatBody, type CreateMessageBody, type MessageDeltaBody, type MessageStatus, type UpdateChatBody } from './chats.schemas.js';

export type ChatRow = Selectable<ChatsTable>;
export type MessageRow = Selectable<MessagesTable>;

export const presentChat = (c: ChatRow) => ({ id: c.id, agent_id: c.agent_id, title: c.title, created_at: c.created_at, updated_at: c.updated_at });
export const presentMessage = (m: MessageRow) => ({
  id: m.id, chat_id: m.chat_id, role: m.role as 'user' | 'assistant', content: m.content, status: m.status as MessageStatus, delta_sequence: m.delta_sequence,
  created_at: m.created_at,
});

type Owned = { orgId: string };
type Page = Owned & { limit: number };
type OwnedMessage = Owned & { chatId: string; messageId: string };
const findChatQuery = preparedQuery((q, $: Owned & { id: string }) => q.selectFrom('chats').selectAll().where('org_id', '=', $.orgId).where('id', '=', $.id));
// A list's filters (agent, cursor) each change the SQL: one prepared query per combination.
const chatsQuery = {
  newest: preparedQuery((q, $: Page) => q.selectFrom('chats').selectAll().where('org_id', '=', $.orgId).orderBy('id', 'desc').limit($.limit)),
  before: preparedQuery((q, $: Page & { cursor: string }) =>
    q.selectFrom('chats').selectAll().where('org_id', '=', $.orgId).where('id', '<', $.cursor).orderBy('id', 'desc').limit($.limit)),
  newestOfAgent: preparedQuery((q, $: Page & { agentId: string }) =>
    q.selectFrom('chats').selectAll().where('org_id', '=', $.orgId).where('agent_id', '=', $.agentId).orderBy('id', 'desc').limit($.limit)),
  beforeOfAgent: preparedQuery((q, $: Page & { agentId: string; cursor: string }) =>
    q.selectFrom('chats').selectAll().where('org_id', '=', $.orgId).where('agent_id', '=', $.agentId).where('id', '<', $.cursor).orderBy('id', 'desc').limit($.limit)),
};
const updateChatTitle = preparedQuery((q, $: Owned & { id: string; title: string | null; now: string }) =>
  q.updateTable('chats').set({ title: $.title, updated_at: $.now }).where('id', '=', $.id).where('org_id', '=', $.orgId).returningAll());
const messagesQuery = {
  newest: preparedQuery((q, $: Page & { chatId: string }) =>
    q.selectFrom('messages').selectAll().where('chat_id', '=', $.chatId).where('org_id', '=', $.orgId).orderBy('id', 'desc').limit($.limit)),
  before: preparedQuery((q, $: Page & { chatId: string; cursor: string }) =>
    q.selectFrom('messages').selectAll().where('chat_id', '=', $.chatId).where('org_id', '=', $.orgId).where('id', '<', $.cursor).orderBy('id', 'desc').limit($.limit)),
};
const findMessage = preparedQuery((q, $: OwnedMessage) =>
  q.selectFrom('messages').selectAll().where('id', '=', $.messageId).where('chat_id', '=', $.chatId).where('org_id', '=', $.orgId));
/** Finds the owner's chat, takes a place under the per-chat cap and stamps updated_at, in one statement. */
const takeMessagePlace = preparedQuery((q, $: Owned & { chatId: string; cap: number; now: string }) =>
  q.updateTable('chats').set((eb) => ({ message_count: eb('message_count', '+', 1), updated_at: $.now }))
    .where('id', '=', $.chatId).where('org_id', '=', $.orgId).where('message_count', '<', $.cap).returning('agent_id'));
const MESSAGE_COLUMNS = ['id', 'chat_id', 'org_id', 'role', 'content', 'status', 'delta_sequence', 'created_at'] as const satisfies readonly (keyof MessageRow)[];
const insertMessage = preparedQuery((q, $: MessageRow) => q.insertInto('messages').values(eachParam($, MESSAGE_COLUMNS)));
/**
 * Appends the next delta in one statement: only to the owner's streaming message, only when it is
 * the very next sequence number (so a retried delta can never be appended twice, and two senders
 * cannot interleave), and only while the text stays within the limit.
 */
const appendDelta = preparedQuery((q, $: OwnedMessage & { sequence: number; previous: number; content: string; room: number }) =>
  q.updateTable('messages').set((eb) => ({ content: eb('content', '||', $.content), delta_sequence: $.sequence }))
    .where('id', '=', $.messageId).where('chat_id', '=', $.chatId).where('org_id', '=', $.orgId)
    .where('status', '=', 'streaming').where('delta_sequence', '=', $.previous)
    .where((eb) => eb(eb.fn('length', ['content']), '<=', $.room))
    .returningAll());
const completeMessage = preparedQuery((q, $: OwnedMessage) =>
  q.updateTable('messages').set({ status: 'completed' })
    .where('id', '=', $.messageId).where('chat_id', '=', $.chatId).where('org_id', '=', $.orgId).where('status', '=', 'streaming')
    .returningAll());

/**
 * Chats hold the conversation with one agent. The service stores and routes: a user message
 * becomes a `chat.message.created` event for the agent's runtime, which answers by posting an
 * assistant message with an API key, whole or streamed (created with status `streaming`, extended
 * by numbered deltas, then completed). No model runs here.
 */
export function createChatsService(deps: { db: Kysely<Database>; dialect: DialectName; clock: Clock; caps: Pick<Caps, 'chatsPerOrganization' | 'messagesPerChat'>; onEvent: OnEventsCommitted }) {
  const { db, clock } = deps;
  const chatNotFound = () => new AppError('not_found', 'No chat with this id.');
  const messageNotFound = () => new AppError('not_found', 'No message with this id in this chat.');
  const findChat = (q: Kysely<Database>, orgId: string, id: string) => findChatQuery.first({ orgId, id }, q);

  return {
    async create(orgId: string, body: CreateChatBody): Promise<ChatRow> {
      const now = isoTime(clock.now());
      const unknownAgent = () => fieldError('/agent_id', 'not_found', 'agent_id does not name an agent of this account.');
      if (!isId('agent', body.agent_id)) throw unknownAgent();
      const row: ChatRow = { id: newId('chat'), org_id: orgId, agent_id: body.agent_id, title: body.title?.trim() || null, created_at: now, updated_at: now, message_count: 0 };
      const recorded = await db.transaction().execute(async (trx) => {
        // The organization first (lockOrganization): an agent deleted meanwhile is then gone when we look.
        await takeCapacity(trx, orgId, 'chat_count', deps.caps.chatsPerOrganization, 'chats');
        const agent = await trx.selectFrom('agents').select('id').where('org_id', '=', orgId).where('id', '=', body.agent_id).executeTakeFirst();
        if (!agent) throw unknownAgent();
        await trx.insertInto('chats').values(row).execute();
        return recordEvent(trx, clock, { orgId, type: 'chat.created', data: presentChat(row), chatId: row.id });
      });
      deps.onEvent(recorded);
      return row;
    },

    async get(orgId: string, id: string): Promise<ChatRow> {
      const row = await findChat(db, orgId, id);
      if (!row) throw chatNotFound();
      return row;
    },

    async update(orgId: string, id: string, body: UpdateChatBody): Promise<ChatRow> {
      const title = body.title === null ? null : body.title.trim() || null;
      const { row, recorded } = await db.transaction().execute(async (trx) => {
        const row = await updateChatTitle.first({ orgId, id, title, now: isoTime(clock.now()) }, trx);
        if (!row) throw chatNotFound();
        return { row, recorded: await recordEvent(trx, clock, { orgId, type: 'chat.updated', data: presentChat(row), chatId: id }) };
      });
      deps.onEvent(recorded);
      return row;
    },

    async list(orgId: string, limit: number, cursor?: string, agentId?: string) {
      const page = { orgId, limit: limit + 1 };
      const rows = agentId
        ? await (cursor ? chatsQuery.beforeOfAgent.all({ ...page, agentId, cursor }, db) : chatsQuery.newestOfAgent.all({ ...page, agentId }, db))
        : await (cursor ? chatsQuery.before.all({ ...page, cursor }, db) : chatsQuery.newest.all(page, db));
      return toPage(rows, limit);
    },

    async delete(orgId: string, id: string): Promise<void> {
      const recorded = await db.transaction().execute(async (trx) => {
        await lockOrganization(trx, deps.dialect, orgId);
        const result = await trx.deleteFrom('chats').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
        if (Number(result.numDeletedRows) === 0) throw chatNotFound();
        await redactChatEvents(trx, orgId, { chatId: id });
        await releaseCapacity(trx, orgId, 'chat_count');
        return recordEvent(trx, clock, { orgId, type: 'chat.deleted', data: { id }, chatId: id });
      });
      deps.onEvent(recorded);
    },

    /**
     * One conditional UPDATE finds the owner's chat, takes a place under the per-chat cap and
     * stamps updated_at; the message and its event follow. Only a refusal looks further (404 or 422).
     */
    async postMessage(orgId: string, chatId: string, body: CreateMessageBody): Promise<MessageRow> {
      const status = body.status ?? 'completed';
      if (status === 'streaming' && body.role !== 'assistant') throw fieldError('/status', 'invalid', 'Only assistant messages stream; post a user message whole.');
      if (status === 'completed' && !body.content) throw fieldError('/content', 'required', 'content is required unless status is "streaming".');
      const now = isoTime(clock.now());
      const row: MessageRow = { id: newId('message'), chat_id: chatId, org_id: orgId, role: body.role, content: body.content ?? '', status, delta_sequence: 0, created_at: now };
      const cap = deps.caps.messagesPerChat;
      const recorded = await db.transaction().execute(async (trx) => {
        const chat = await takeMessagePlace.first({ orgId, chatId, cap, now }, trx);
        if (!chat) {
          if (!(await findChat(trx, orgId, chatId))) throw chatNotFound();
          throw new AppError('limit_reached', `A chat can hold at most ${cap} messages; start a new chat.`, { limit: cap });
        }
        await insertMessage.run(row, trx);
        return recordEvent(trx, clock, { orgId, type: 'chat.message.created', data: { ...presentMessage(row), agent_id: chat.agent_id }, chatId });
      });
      deps.onEvent(recorded);
      return row;
    },

    /**
     * Appends a streaming reply's next piece. Deltas are idempotent by sequence number: one already
     * applied is answered with the message as it is and changes nothing (a runtime may retry
     * blindly); one that skips ahead is 409 with the sequence expected.
     */
    async appendDelta(orgId: string, chatId: string, messageId: string, body: MessageDeltaBody): Promise<MessageRow> {
      const key = { orgId, chatId, messageId };
      const room = CHAT_LIMITS.content - [...body.content].length;
      const outcome = await db.transaction().execute(async (trx) => {
        const row = await appendDelta.first({ ...key, sequence: body.sequence, previous: body.sequence - 1, content: body.content, room }, trx);
        if (!row) return { row: await explainRefusedDelta(trx, key, body.sequence), recorded: undefined };
        const data = { chat_id: chatId, message_id: messageId, sequence: body.sequence, content: body.content };
        return { row, recorded: await recordEvent(trx, clock, { orgId, type: 'chat.message.delta', data, chatId }) };
      });
      if (outcome.recorded) deps.onEvent(outcome.recorded);
      return outcome.row;
    },

    /** Ends a streaming reply. Completing a completed message answers it again and records nothing. */
    async completeMessage(orgId: string, chatId: string, messageId: string): Promise<MessageRow> {
      const key = { orgId, chatId, messageId };
      const outcome = await db.transaction().execute(async (trx) => {
        const row = await completeMessage.first(key, trx);
        if (!row) {
          const current = await findMessage.first(key, trx);
          if (!current) throw messageNotFound();
          return { row: current, recorded: undefined };
        }
        return { row, recorded: await recordEvent(trx, clock, { orgId, type: 'chat.message.completed', data: presentMessage(row), chatId }) };
      });
      if (outcome.recorded) deps.onEvent(outcome.recorded);
      return outcome.row;
    },

    /** Carries the owner in the query; only an empty page asks whether the chat is there at all. */
    async listMessages(orgId: string, chatId: string, limit: number, cursor?: string) {
      const page = { orgId, chatId, limit: limit + 1 };
      const rows = cursor ? await messagesQuery.before.all({ ...page, cursor }, db) : await messagesQuery.newest.all(page, db);
      if (rows.length === 0 && !(await findChat(db, orgId, chatId))) throw chatNotFound();
      return toPage(rows, limit);
    },
  };

  /** Why a delta was not appended: answered again when already applied, else the reason as an error. */
  async function explainRefusedDelta(trx: Kysely<Database>, key: OwnedMessage, sequence: number): Promise<MessageRow> {
    const current = await findMessage.first(key, trx);
    if (!current) throw messageNotFound();
    if (sequence <= current.delta_sequence) return current;
    if (current.status !== 'streaming') throw new AppError('conflict', 'This message is not streaming: it was posted whole or has been completed.');
    if (sequence > current.delta_sequence + 1) {
      throw new AppError('conflict', `Deltas apply in order; the next one for this message is ${current.delta_sequence + 1}.`, { expected_sequence: current.delta_sequence + 1 });
    }
    throw new AppError('limit_reached', `A message can hold at most ${CHAT_LIMITS.content} characters.`, { limit: CHAT_LIMITS.content });
  }
}
export type ChatsService = ReturnType<typeof createChatsService>;
