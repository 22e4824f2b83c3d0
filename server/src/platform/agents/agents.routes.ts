import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actingOrgId } from '../../http/caller.js';
import { AppError } from '../../kernel/errors.js';
import { assertCursor } from '../../kernel/pagination.js';
import { ListQuery, listOf, problemResponses } from '../../http/schemas.js';
import { isId } from '../../kernel/ids.js';
import { CreateAgentBody, UpdateAgentBody } from './agents.schemas.js';
import { presentAgent, type AgentsService } from './agents.service.js';

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const agentsRoutes: FastifyPluginAsyncTypebox<{ agents: AgentsService }> = async (app, { agents }) => {
  const tags = ['Agents'];
  const checkedId = (id: string) => {
    if (!isId('agent', id)) throw new AppError('not_found', 'No agent with this id.');
    return id;
  };

  app.post('/agents', {
    config: { auth: 'agents:write', idempotent: true, locationHeader: true },
    schema: { tags, operationId: 'createAgent', summary: 'Create an agent', body: CreateAgentBody, response: { 201: Type.Ref('Agent'), ...problemResponses([400, 409, 413, 415, 422]) } },
  }, async (request, reply) => {
    const row = await agents.create(actingOrgId(request), request.body);
    return reply.code(201).header('Location', `/v1/agents/${row.id}`).send(presentAgent(row));
  });

  app.get('/agents', {
    config: { auth: 'agents:read' },
    schema: { tags, operationId: 'listAgents', summary: 'Agents of the account, newest first', querystring: ListQuery, response: { 200: listOf(Type.Ref('Agent')), ...problemResponses([400]) } },
  }, async (request) => {
    const { limit, cursor } = request.query;
    assertCursor('agent', cursor);
    const page = await agents.list(actingOrgId(request), limit, cursor);
    return { data: page.rows.map(presentAgent), next_cursor: page.nextCursor };
  });

  app.get('/agents/:id', {
    config: { auth: 'agents:read' },
    schema: { tags, operationId: 'getAgent', summary: 'One agent', params: IdParams, response: { 200: Type.Ref('Agent'), ...problemResponses([404]) } },
  }, async (request) => presentAgent(await agents.get(actingOrgId(request), checkedId(request.params.id))));

  app.patch('/agents/:id', {
    config: { auth: 'agents:write' },
    schema: { tags, operationId: 'updateAgent', summary: 'Change an agent', params: IdParams, body: UpdateAgentBody, response: { 200: Type.Ref('Agent'), ...problemResponses([400, 404, 413, 415]) } },
  }, async (request) => presentAgent(await agents.update(actingOrgId(request), checkedId(request.params.id), request.body)));

  app.delete('/agents/:id', {
    config: { auth: 'agents:write' },
    schema: { tags, operationId: 'deleteAgent', summary: 'Delete an agent with its chats and messages', params: IdParams, response: { 204: Type.Null({ description: 'Deleted' }), ...problemResponses([404]) } },
  }, async (request, reply) => {
    await agents.delete(actingOrgId(request), checkedId(request.params.id));
    return reply.code(204).send(null);
  });
};
