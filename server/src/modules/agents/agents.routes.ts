import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ListQuery, listOf, problemResponses } from '../../http/schemas.js';

/**
 * The first platform resource behind the bearer credential. Agents are stored by the agents
 * capability (issue 4); until then the list is empty but the route is fully protected.
 */
export const agentsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/agents', {
    config: { auth: 'agents:read' },
    schema: {
      tags: ['Agents'], operationId: 'listAgents', summary: 'Agents of the account, newest first',
      querystring: ListQuery,
      response: { 200: listOf(Type.Object({ id: Type.String(), name: Type.String() }, { additionalProperties: true })), ...problemResponses([400]) },
    },
  }, async () => ({ data: [], next_cursor: null }));
};
