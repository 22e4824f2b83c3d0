/**
 * platform: what the API is for. Agents, chats and their messages, live streams, webhooks and
 * their deliveries. Owns those tables. Other contexts import only this file.
 */

export { agentsRoutes } from './agents/agents.routes.js';
export { Agent } from './agents/agents.schemas.js';
export { createAgentsService, presentAgent } from './agents/agents.service.js';
export type { AgentsService } from './agents/agents.service.js';
export { chatsRoutes } from './chats/chats.routes.js';
export { Chat, Message } from './chats/chats.schemas.js';
export { createChatsService, presentChat, presentMessage } from './chats/chats.service.js';
export type { ChatRow, ChatsService } from './chats/chats.service.js';
export { createMcpHandler } from './mcp/mcp.module.js';
export type { McpHandler } from './mcp/mcp.module.js';
export { MCP_TOOLS } from './mcp/mcp-tools.js';
export { mcpRoutes, protectedResourceMetadataUrl, protectedResourceRoute } from './mcp/mcp.routes.js';
export { createMemoryEventNotices, createRedisEventNotices } from './streams/new-event-notices.js';
export type { EventNotices } from './streams/new-event-notices.js';
export { createMemoryStreamSlots, createRedisStreamSlots } from './streams/stream-slots.js';
export type { StreamSlots } from './streams/stream-slots.js';
export { createStreams } from './streams/streams.module.js';
export type { Streams } from './streams/streams.module.js';
export { streamsRoutes } from './streams/streams.routes.js';
export { createWebhooks } from './webhooks/webhooks.module.js';
export type { Webhooks } from './webhooks/webhooks.module.js';
export { webhooksRoutes } from './webhooks/webhooks.routes.js';
export { CreatedWebhookEndpoint, WebhookDelivery, WebhookEndpoint } from './webhooks/webhooks.schemas.js';
export { presentEndpoint } from './webhooks/webhooks.service.js';
