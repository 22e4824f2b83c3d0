import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Kysely } from 'kysely';
import type { AuthContext } from '../../kernel/access-terms/credentials.js';
import { AppError } from '../../kernel/errors.js';
import { streamCapFor } from '../../kernel/access-terms/tiers.js';
import type { Database } from '../../kernel/db/schema.js';
import { preparedQuery } from '../../kernel/db/prepared-queries.js';
import type { Membership } from '../../access/index.js';
import type { EventType } from '../../kernel/events/event-types.js';
import { lastNumberGiven } from '../../kernel/events/event-sequencer.js';
import { READ_PAGE, STREAMED_COLUMNS, toStreamed, type EventFeed, type StreamedEvent } from './event-feed.js';
import { createLiveStream, type Presentation } from './live-stream.js';
import type { StreamRegistry } from './stream-registry.js';
import type { StreamSlots } from './stream-slots.js';
import { CHAT_STREAM_NAMES } from './stream-visibility.js';

/** `joinedAt`: the reader joined the organization then; nothing from before is theirs to replay. */
type Range = { orgId: string; after: number; upTo: number; joinedAt: string; limit: number };
const replayOfOrganization = preparedQuery((q, $: Range) =>
  q.selectFrom('events').select(STREAMED_COLUMNS).where('org_id', '=', $.orgId).where('seq', '>', $.after).where('seq', '<=', $.upTo)
    .where('created_at', '>=', $.joinedAt).orderBy('seq').limit($.limit));
const replayOfChat = preparedQuery((q, $: Range & { chatId: string }) =>
  q.selectFrom('events').select(STREAMED_COLUMNS).where('chat_id', '=', $.chatId).where('org_id', '=', $.orgId)
    .where('seq', '>', $.after).where('seq', '<=', $.upTo).where('created_at', '>=', $.joinedAt).orderBy('seq').limit($.limit));
const joinedAt = preparedQuery((q, $: { orgId: string; userId: string }) =>
  q.selectFrom('memberships').select('created_at').where('org_id', '=', $.orgId).where('user_id', '=', $.userId));

/** A 429 that says how many streams the organization may hold; Retry-After because one may close soon. */
const tooManyStreams = (cap: number) =>
  new AppError('too_many_streams', `This organization may hold ${cap} live streams open at once; close one first.`, { headers: { 'Retry-After': '5' }, limit: cap });

export interface StreamRequest {
  auth: AuthContext;
  /** The organization the stream reads, whose cap it counts against. */
  organization: Membership;
  /** The Last-Event-ID the client sent: replay what came after it. */
  lastEventId: number | null;
}

/** A stream ready to start: everything that could refuse it has passed. */
export interface OpenedStream {
  /** Writes to the response (its head written by the caller): the replay, then live events. */
  start(out: ServerResponse): void;
  /** Gives up the slot and the feed without starting (a HEAD request). */
  cancel(): void;
}

/**
 * Opens live streams: takes a slot under the organization's cap, joins the organization's feed, replays
 * from the database what the client missed (after Last-Event-ID, up to where the feed starts),
 * then goes live. Everything that can refuse (the chat, the cap, the database) happens before the
 * answer starts, so a refusal is an ordinary problem+json answer.
 */
export function createStreamsService(deps: { db: Kysely<Database>; feed: EventFeed; slots: StreamSlots; registry: StreamRegistry }) {
  const { db, feed, slots, registry } = deps;

  /**
   * The client's Last-Event-ID if it is a number this organization's events reached; else null
   * (start live). Numbers never go back, so a larger one was never sent by us (another database,
   * a made-up header): kept, it would make the stream drop every live event up to it.
   */
  async function resumePoint(orgId: string, lastEventId: number | null): Promise<number | null> {
    if (lastEventId === null || lastEventId === 0) return lastEventId;
    return lastEventId <= (await lastNumberGiven(db, orgId)) ? lastEventId : null;
  }

  async function open(input: StreamRequest, present: (event: StreamedEvent) => Presentation, replay: (range: Range) => Promise<StreamedEvent[]>): Promise<OpenedStream> {
    const { auth, organization } = input;
    const orgId = organization.org.id;
    const request = { ...input, lastEventId: await resumePoint(orgId, input.lastEventId) };
    // A key's stream reads as the member who made it. No membership: removed meanwhile.
    const member = await joinedAt.first({ orgId, userId: auth.userId }, db);
    if (!member) throw new AppError('not_a_member', 'The caller no longer belongs to this organization.');
    const slotId = randomUUID();
    const cap = streamCapFor(organization.org);
    if (!(await slots.take(orgId, slotId, cap))) throw tooManyStreams(cap);
    let stopWatching = () => {};
    const stream = createLiveStream({
      owner: { userId: auth.userId, orgId, sessionId: auth.sessionId, apiKeyHash: auth.apiKeyHash, expiresAt: auth.expiresAt },
      lastEventId: request.lastEventId ?? 0,
      present,
      onClosed: () => {
        stopWatching();
        registry.remove(stream);
        slots.release(orgId, slotId);
      },
    });
    // Registered at once: a revocation that arrives while the stream is being set up ends it too.
    registry.add(stream);
    let since: number;
    try {
      const watch = await feed.watch(orgId, stream.deliver);
      stopWatching = watch.stop;
      since = watch.since;
      // Closed while it waited (revoked, expired, shutdown): its onClosed ran before there was a
      // watch to stop. The route's last checks then refuse it, or start() says why it ended.
      if (stream.closed) watch.stop();
    } catch (error) {
      stream.close();
      throw error;
    }
    return {
      start(out) {
        const { lastEventId } = request;
        stream.attach(out, lastEventId === null || lastEventId >= since ? (lastEventId ?? since) : null);
        if (!stream.closed) void replayThenLive(stream, request.lastEventId, since, (range) => replay({ ...range, joinedAt: member.created_at }));
      },
      cancel: () => stream.close(),
    };
  }

  async function replayThenLive(stream: ReturnType<typeof createLiveStream>, lastEventId: number | null, since: number, replay: (range: Omit<Range, 'joinedAt'>) => Promise<StreamedEvent[]>): Promise<void> {
    try {
      let after = lastEventId ?? since;
      while (after < since && !stream.closed) {
        const events = await replay({ orgId: stream.owner.orgId, after, upTo: since, limit: READ_PAGE });
        for (const event of events) stream.write(event);
        if (events.length < READ_PAGE) break;
        after = events.at(-1)!.seq;
      }
      stream.goLive(since);
    } catch {
      // The database failed mid-replay: the client reconnects and resumes from what it got.
      stream.close();
    }
  }

  return {
    /** One chat's messages and changes; ends when the chat (or its agent) is deleted. */
    async openChat(request: StreamRequest, chat: { id: string; agent_id: string }): Promise<OpenedStream> {
      const present = (event: StreamedEvent): Presentation => {
        if (event.chatId === chat.id) {
          if (event.type === 'chat.deleted') return { close: 'chat_deleted' };
          return { name: CHAT_STREAM_NAMES[event.type] ?? event.type };
        }
        if (event.type === 'agent.deleted' && (JSON.parse(event.dataJson) as { id?: string }).id === chat.agent_id) return { close: 'chat_deleted' };
        return null;
      };
      return open(request, present, async (range) => (await replayOfChat.all({ ...range, chatId: chat.id }, db)).map(toStreamed));
    },

    /** Every event of the organization the credential may read, of the `types` asked for. */
    async openOrganization(request: StreamRequest, types: ReadonlySet<EventType>): Promise<OpenedStream> {
      const present = (event: StreamedEvent): Presentation => (types.has(event.type) ? { name: event.type } : null);
      return open(request, present, async (range) => (await replayOfOrganization.all(range, db)).map(toStreamed));
    },
  };
}
export type StreamsService = ReturnType<typeof createStreamsService>;
