import { Type, type Static, type TSchema } from 'typebox';
import type { Scope } from '../../kernel/access-terms/scopes.js';
import { AppError } from '../../kernel/errors.js';
import { isId, type IdKind } from '../../kernel/ids.js';
import { assertCursor } from '../../kernel/pagination.js';
import { CreateAgentBody } from '../agents/agents.schemas.js';
import { presentAgent, type AgentsService } from '../agents/agents.service.js';
import { CreateChatBody, CreateMessageBody } from '../chats/chats.schemas.js';
import { presentChat, presentMessage, type ChatsService } from '../chats/chats.service.js';

/** What a tool reaches: the same services the REST routes call, so there is no second way in. */
export interface McpToolServices {
  agents: AgentsService;
  chats: ChatsService;
}

/**
 * One MCP tool: its input's JSON Schema (validated as a REST body is), the scope a grant needs
 * for it (the REST route's), and the call, for the organization the token acts for. It answers
 * what the REST route answers.
 */
export interface McpTool<S extends TSchema = TSchema> {
  name: string;
  title: string;
  description: string;
  input: S;
  scope: Scope;
  readOnly: boolean;
  run(services: McpToolServices, orgId: string, input: Static<S>): Promise<Record<string, unknown>>;
}

const tool = <S extends TSchema>(definition: McpTool<S>) => definition as unknown as McpTool;

const Limit = Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'How many, at most (default 20)' }));
const Cursor = Type.Optional(Type.String({ maxLength: 64, description: 'The next_cursor of the previous page' }));
const IdOf = (what: string) => Type.String({ maxLength: 64, description: `The ${what}'s id` });

/** An id of another kind, or none at all, is no such thing: 404, as the REST path answers. */
function checked(kind: IdKind, id: string, what: string): string {
  if (!isId(kind, id)) throw new AppError('not_found', `No ${what} with this id.`);
  return id;
}

const page = <T>(rows: T[], nextCursor: string | null, present: (row: T) => unknown) => ({ data: rows.map(present), next_cursor: nextCursor });

export const MCP_TOOLS: readonly McpTool[] = [
  tool({
    name: 'list_agents', title: 'List agents', readOnly: true, scope: 'agents:read',
    description: 'The agents of the organization this connection acts for, newest first (as GET /v1/agents).',
    input: Type.Object({ limit: Limit, cursor: Cursor }, { additionalProperties: false }),
    async run({ agents }, orgId, { limit = 20, cursor }) {
      assertCursor('agent', cursor);
      const result = await agents.list(orgId, limit, cursor);
      return page(result.rows, result.nextCursor, presentAgent);
    },
  }),
  tool({
    name: 'get_agent', title: 'Get an agent', readOnly: true, scope: 'agents:read',
    description: 'One agent by its id (as GET /v1/agents/{id}).',
    input: Type.Object({ agent_id: IdOf('agent') }, { additionalProperties: false }),
    run: async ({ agents }, orgId, { agent_id }) => presentAgent(await agents.get(orgId, checked('agent', agent_id, 'agent'))),
  }),
  tool({
    name: 'create_agent', title: 'Create an agent', readOnly: false, scope: 'agents:write',
    description: 'Create an agent: a name and a model, with optional description, instructions and metadata (as POST /v1/agents).',
    input: CreateAgentBody,
    run: async ({ agents }, orgId, body) => presentAgent(await agents.create(orgId, body)),
  }),
  tool({
    name: 'list_chats', title: 'List chats', readOnly: true, scope: 'chats:read',
    description: 'The chats of the organization, newest first; agent_id keeps one agent\'s (as GET /v1/chats).',
    input: Type.Object({ limit: Limit, cursor: Cursor, agent_id: Type.Optional(IdOf('agent')) }, { additionalProperties: false }),
    async run({ chats }, orgId, { limit = 20, cursor, agent_id }) {
      assertCursor('chat', cursor);
      if (agent_id !== undefined && !isId('agent', agent_id)) return page([], null, presentChat);
      const result = await chats.list(orgId, limit, cursor, agent_id);
      return page(result.rows, result.nextCursor, presentChat);
    },
  }),
  tool({
    name: 'create_chat', title: 'Start a chat', readOnly: false, scope: 'chats:write',
    description: 'Start a chat with an agent, with an optional title (as POST /v1/chats).',
    input: CreateChatBody,
    run: async ({ chats }, orgId, body) => presentChat(await chats.create(orgId, body)),
  }),
  tool({
    name: 'list_messages', title: 'List messages', readOnly: true, scope: 'chats:read',
    description: 'The messages of a chat, newest first (as GET /v1/chats/{id}/messages).',
    input: Type.Object({ chat_id: IdOf('chat'), limit: Limit, cursor: Cursor }, { additionalProperties: false }),
    async run({ chats }, orgId, { chat_id, limit = 20, cursor }) {
      assertCursor('message', cursor);
      const result = await chats.listMessages(orgId, checked('chat', chat_id, 'chat'), limit, cursor);
      return page(result.rows, result.nextCursor, presentMessage);
    },
  }),
  tool({
    name: 'post_message', title: 'Post a message', readOnly: false, scope: 'chats:write',
    description: "Post a message to a chat; a user message reaches the agent's runtime (as POST /v1/chats/{id}/messages).",
    input: Type.Object({ chat_id: IdOf('chat'), ...CreateMessageBody.properties }, { additionalProperties: false }),
    async run({ chats }, orgId, { chat_id, ...body }) {
      return presentMessage(await chats.postMessage(orgId, checked('chat', chat_id, 'chat'), body));
    },
  }),
];
