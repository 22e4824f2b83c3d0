import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actingOrgId } from '../../http/caller.js';
import { AppError } from '../../kernel/errors.js';
import { assertCursor } from '../../kernel/pagination.js';
import { ListQuery, listOf, problemResponses } from '../../http/schemas.js';
import { isId } from '../../kernel/ids.js';
import { ChatListQuery, CreateChatBody, CreateMessageBody, MessageDeltaBody, UpdateChatBody } from './chats.schemas.js';
import { presentChat, presentMessage, type ChatsService } from './chats.service.js';

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const MessageParams = Type.Object({ id: Type.String({ maxLength: 64 }), message_id: Type.String({ maxLength: 64 }) });

export const chatsRoutes: FastifyPluginAsyncTypebox<{ chats: ChatsService }> = async (app, { chats }) => {
  const tags = ['Chats'];
  const chatId = (id: string) => {
    if (!isId('chat', id)) throw new AppError('not_found', 'No chat with this id.');
    return id;
  };
  const messageId = (id: string) => {
    if (!isId('message', id)) throw new AppError('not_found', 'No message with this id in this chat.');
    return id;
  };

  app.post('/chats', {
    config: { auth: 'chats:write', idempotent: true, locationHeader: true },
    schema: { tags, operationId: 'createChat', summary: 'Start a chat with an agent', body: CreateChatBody, response: { 201: Type.Ref('Chat'), ...problemResponses([400, 409, 413, 415, 422]) } },
  }, async (request, reply) => {
    const row = await chats.create(actingOrgId(request), request.body);
    return reply.code(201).header('Location', `/v1/chats/${row.id}`).send(presentChat(row));
  });

  app.get('/chats', {
    config: { auth: 'chats:read' },
    schema: { tags, operationId: 'listChats', summary: 'Chats of the account, newest first; filter by agent_id', querystring: ChatListQuery, response: { 200: listOf(Type.Ref('Chat')), ...problemResponses([400]) } },
  }, async (request) => {
    const { limit, cursor, agent_id: agentId } = request.query;
    assertCursor('chat', cursor);
    if (agentId !== undefined && !isId('agent', agentId)) return { data: [], next_cursor: null };
    const page = await chats.list(actingOrgId(request), limit, cursor, agentId);
    return { data: page.rows.map(presentChat), next_cursor: page.nextCursor };
  });

  app.get('/chats/:id', {
    config: { auth: 'chats:read' },
    schema: { tags, operationId: 'getChat', summary: 'One chat', params: IdParams, response: { 200: Type.Ref('Chat'), ...problemResponses([404]) } },
  }, async (request) => presentChat(await chats.get(actingOrgId(request), chatId(request.params.id))));

  app.patch('/chats/:id', {
    config: { auth: 'chats:write' },
    schema: { tags, operationId: 'updateChat', summary: 'Rename a chat (chat.updated)', params: IdParams, body: UpdateChatBody, response: { 200: Type.Ref('Chat'), ...problemResponses([400, 404, 413, 415]) } },
  }, async (request) => presentChat(await chats.update(actingOrgId(request), chatId(request.params.id), request.body)));

  app.delete('/chats/:id', {
    config: { auth: 'chats:write' },
    schema: { tags, operationId: 'deleteChat', summary: 'Delete a chat and its messages', params: IdParams, response: { 204: Type.Null({ description: 'Deleted' }), ...problemResponses([404]) } },
  }, async (request, reply) => {
    await chats.delete(actingOrgId(request), chatId(request.params.id));
    return reply.code(204).send(null);
  });

  app.post('/chats/:id/messages', {
    config: { auth: 'chats:write', idempotent: true },
    schema: {
      tags, operationId: 'createMessage', summary: 'Post a message; user messages reach the agent runtime as chat.message.created',
      params: IdParams, body: CreateMessageBody, response: { 201: Type.Ref('Message'), ...problemResponses([400, 404, 409, 413, 415, 422]) },
    },
  }, async (request, reply) => {
    const row = await chats.postMessage(actingOrgId(request), chatId(request.params.id), request.body);
    return reply.code(201).send(presentMessage(row));
  });

  app.post('/chats/:id/messages/:message_id/deltas', {
    config: { auth: 'chats:write' },
    schema: {
      tags, operationId: 'appendMessageDelta',
      summary: 'Append the next piece of a streaming reply; idempotent by sequence (a sequence already applied changes nothing)',
      params: MessageParams, body: MessageDeltaBody, response: { 200: Type.Ref('Message'), ...problemResponses([400, 404, 409, 413, 415, 422]) },
    },
  }, async (request) => {
    const { id, message_id } = request.params;
    return presentMessage(await chats.appendDelta(actingOrgId(request), chatId(id), messageId(message_id), request.body));
  });

  app.post('/chats/:id/messages/:message_id/complete', {
    config: { auth: 'chats:write' },
    schema: {
      tags, operationId: 'completeMessage', summary: 'Mark a streaming reply complete (chat.message.completed); completing it again changes nothing',
      params: MessageParams, response: { 200: Type.Ref('Message'), ...problemResponses([404]) },
    },
  }, async (request) => {
    const { id, message_id } = request.params;
    return presentMessage(await chats.completeMessage(actingOrgId(request), chatId(id), messageId(message_id)));
  });

  app.get('/chats/:id/messages', {
    config: { auth: 'chats:read' },
    schema: { tags, operationId: 'listMessages', summary: 'Messages of a chat, newest first', params: IdParams, querystring: ListQuery, response: { 200: listOf(Type.Ref('Message')), ...problemResponses([400, 404]) } },
  }, async (request) => {
    const { limit, cursor } = request.query;
    assertCursor('message', cursor);
    const page = await chats.listMessages(actingOrgId(request), chatId(request.params.id), limit, cursor);
    return { data: page.rows.map(presentMessage), next_cursor: page.nextCursor };
  });
};
