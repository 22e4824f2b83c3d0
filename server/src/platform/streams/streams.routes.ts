import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OutgoingHttpHeaders } from 'node:http';
import { Type } from 'typebox';
import { accountRefusal, resolveCredential, type AuthenticateDeps, type OrganizationCache } from '../../access/index.js';
import { parseBearer, requireAuth } from '../../http/caller.js';
import { requireOrganization } from '../../http/caller.js';
import type { AccountCache } from '../../identity/index.js';
import { AppError, fieldError } from '../../kernel/errors.js';
import { isId } from '../../kernel/ids.js';
import { problemResponses } from '../../http/schemas.js';
import { ALL_EVENT_TYPES, isEventPattern } from '../../kernel/events/event-types.js';
import type { ChatsService } from '../chats/chats.service.js';
import type { StreamRegistry } from './stream-registry.js';
import type { OpenedStream, StreamRequest, StreamsService } from './streams.service.js';
import { visibleTypes } from './stream-visibility.js';

const LastEventId = Type.Optional(Type.String({ maxLength: 20, description: 'Same as the Last-Event-ID header (which wins): replay what came after this event number' }));
const ChatStreamParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const ChatStreamQuery = Type.Object({ last_event_id: LastEventId }, { additionalProperties: false });
const EventStreamQuery = Type.Object(
  {
    types: Type.Optional(Type.String({ maxLength: 2000, description: 'Comma-separated patterns (`chat.*`, `agent.created`, `*`); default: every event the credential may read' })),
    last_event_id: LastEventId,
  },
  { additionalProperties: false },
);

const EVENT_STREAM = {
  description: 'Server-Sent Events: `id:` (the account\'s event number), `event:` (the type), `data:` (the event as JSON: `{id, type, created_at, data}`), `: ping` heartbeats, and a last `stream.closed` event when the server ends the stream',
  content: { 'text/event-stream': { schema: Type.String() } },
};

/** The Last-Event-ID header, else the query parameter: a whole event number, or none. */
function lastEventIdOf(request: FastifyRequest, query: string | undefined): number | null {
  const header = request.headers['last-event-id'];
  const raw = (typeof header === 'string' && header !== '' ? header : query)?.trim();
  if (raw === undefined || raw === '') return null;
  if (!/^\d{1,15}$/.test(raw)) throw fieldError('/last_event_id', 'invalid', 'Last-Event-ID must be the `id` of an event this stream sent (a whole number).');
  return Number(raw);
}

function streamRequest(request: FastifyRequest, lastEventId: string | undefined): StreamRequest {
  return { auth: requireAuth(request), organization: requireOrganization(request), lastEventId: lastEventIdOf(request, lastEventId) };
}

/**
 * Takes the response from Fastify and hands it to the stream: the head carries what the hooks set
 * (request id, no-store, the RateLimit headers). Fastify's onResponse hooks (the log line, the
 * duration histogram) do not run for a stream: its duration is the client's choice, not a cost.
 */
function sendStream(reply: FastifyReply, opened: OpenedStream): FastifyReply {
  if (reply.request.method === 'HEAD') {
    // The head of a stream, and nothing that would hold a slot open.
    opened.cancel();
    return reply.header('content-type', 'text/event-stream; charset=utf-8').send();
  }
  reply.hijack();
  // X-Accel-Buffering: nginx would otherwise hold events back in its buffer.
  reply.raw.writeHead(200, { ...(reply.getHeaders() as OutgoingHttpHeaders), 'content-type': 'text/event-stream; charset=utf-8', 'x-accel-buffering': 'no' });
  opened.start(reply.raw);
  return reply;
}

type CredentialDeps = Pick<AuthenticateDeps, 'accessTokens' | 'revocations' | 'apiKeys'> & { accounts: Pick<AccountCache, 'get'>; organizations: Pick<OrganizationCache, 'get'> };

/**
 * The credential, the account and the membership once more, after the stream is registered: a revocation or a
 * disabling that arrived while the stream was being set up (after the authenticate step, before
 * the registry could hear of it) is then refused here instead of missed.
 */
async function assertStillValid(deps: CredentialDeps, request: FastifyRequest): Promise<void> {
  await resolveCredential(deps, parseBearer(request.headers.authorization));
  const account = await deps.accounts.get(requireAuth(request).userId);
  const refused = accountRefusal(account);
  if (refused !== undefined || account === undefined) throw refused;
  if ((await deps.organizations.get(requireOrganization(request).org.id, account.id)) === null) throw new AppError('not_a_member', 'The caller no longer belongs to this organization.');
}

/** Runs the last checks on an opened stream; a refusal gives its slot and feed back. */
async function confirm(opened: OpenedStream, checks: () => Promise<unknown>): Promise<OpenedStream> {
  try {
    await checks();
    return opened;
  } catch (error) {
    opened.cancel();
    throw error;
  }
}

export const streamsRoutes: FastifyPluginAsyncTypebox<{ streams: StreamsService; registry: StreamRegistry; chats: ChatsService; credentials: CredentialDeps }> = async (app, { streams, registry, chats, credentials }) => {
  // Open streams would keep the server waiting for their connections: end them first.
  app.addHook('preClose', (done) => {
    registry.closeAll();
    done();
  });

  app.get('/chats/:id/stream', {
    config: { auth: 'chats:read' },
    schema: {
      tags: ['Chats'], operationId: 'streamChat',
      summary: 'Live events of a chat (Server-Sent Events): message.created, message.delta, message.completed, chat.updated; resumes after Last-Event-ID',
      params: ChatStreamParams, querystring: ChatStreamQuery, response: { 200: EVENT_STREAM, ...problemResponses([400, 404]) },
    },
  }, async (request, reply) => {
    const stream = streamRequest(request, request.query.last_event_id);
    if (!isId('chat', request.params.id)) throw new AppError('not_found', 'No chat with this id.');
    const chat = await chats.get(stream.organization.org.id, request.params.id);
    const opened = await streams.openChat(stream, chat);
    // The chat again too: deleted before the stream joined the feed, its chat.deleted would be missed.
    return sendStream(reply, await confirm(opened, async () => {
      await assertStillValid(credentials, request);
      await chats.get(stream.organization.org.id, chat.id);
    }));
  });

  app.get('/events/stream', {
    config: { auth: 'any' },
    schema: {
      tags: ['Events'], operationId: 'streamEvents',
      summary: "Live events of the account (Server-Sent Events), those the credential may read, of the types asked for; resumes after Last-Event-ID",
      querystring: EventStreamQuery, response: { 200: EVENT_STREAM, ...problemResponses([400]) },
    },
  }, async (request, reply) => {
    const stream = streamRequest(request, request.query.last_event_id);
    const account = await credentials.accounts.get(stream.auth.userId);
    const reader = { auth: stream.auth, ownAccount: account?.personal_org_id === stream.organization.org.id };
    const asked = request.query.types?.split(',').map((p) => p.trim()).filter(Boolean);
    const patterns = asked?.length ? asked : undefined; // `types=` alone asks for nothing in particular: all
    for (const pattern of patterns ?? []) {
      if (!isEventPattern(pattern, ALL_EVENT_TYPES)) throw fieldError('/types', 'invalid', `"${pattern.slice(0, 100)}" is not an event type or pattern (chat.*, agent.created, *).`);
      if (visibleTypes(reader, [pattern]).size === 0) {
        throw new AppError('insufficient_scope', `This credential may not read ${pattern} events: platform events need their read scope, account events an access token from a login, in one's own personal organization.`);
      }
    }
    const opened = await streams.openOrganization(stream, visibleTypes(reader, patterns));
    return sendStream(reply, await confirm(opened, () => assertStillValid(credentials, request)));
  });
};
