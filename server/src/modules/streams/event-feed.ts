import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import { preparedQuery } from '../../infra/db/prepared-queries.js';
import type { EventSequencer } from '../events/event-sequencer.js';
import type { EventType } from '../events/event-types.js';
import type { LiveNotices } from './live-notices.js';

/** An event as streams send it: its number, and its data still as the JSON text stored. */
export interface StreamedEvent {
  seq: number;
  id: string;
  type: EventType;
  createdAt: string;
  chatId: string | null;
  dataJson: string;
}

export type FeedListener = (event: StreamedEvent) => void;

/** Events read at a time, by the feed and by a stream's replay. */
export const READ_PAGE = 500;
/** Bounds the delay of an event whose notice was lost (Redis away, a crash between commit and publish). */
const SAFETY_CHECK_MS = 10_000;

/** What a stream needs of an event row (toStreamed turns it into a StreamedEvent). */
export const STREAMED_COLUMNS = ['seq', 'id', 'type', 'created_at', 'chat_id', 'data'] as const;
const eventsAfter = preparedQuery((q, $: { userId: string; after: number; limit: number }) =>
  q.selectFrom('events').select(STREAMED_COLUMNS).where('user_id', '=', $.userId).where('seq', '>', $.after).orderBy('seq').limit($.limit));

export const toStreamed = (row: { seq: number | null; id: string; type: string; created_at: string; chat_id: string | null; data: string }): StreamedEvent => ({
  seq: Number(row.seq), id: row.id, type: row.type as EventType, createdAt: row.created_at, chatId: row.chat_id, dataJson: row.data,
});

interface Hub {
  listeners: Set<FeedListener>;
  /** Every event up to here has been handed to the listeners. */
  lastSeq: number;
  /** A notice came while reading: read again once done. */
  dirty: boolean;
  reading: boolean;
  ready: Promise<void>;
}

/**
 * This instance's view of the accounts it streams for: per account one hub that hears notices
 * (live-notices.ts), numbers what was committed (event-sequencer.ts) and reads the events it has
 * not handed out yet, in order, from the database, once for all of the account's streams here.
 * Numbers are never given twice and never go back, so "after the last one I handed out" is all a hub needs
 * to know: a late, repeated or lost notice changes when events arrive, never which or in what order.
 */
export function createEventFeed(deps: { db: Kysely<Database>; sequencer: EventSequencer; notices: LiveNotices; onError: (error: unknown) => void }) {
  const { db, sequencer, notices } = deps;
  const hubs = new Map<string, Hub>();

  async function catchUp(userId: string, hub: Hub): Promise<void> {
    if (hub.reading) {
      hub.dirty = true;
      return;
    }
    hub.reading = true;
    try {
      do {
        hub.dirty = false;
        await sequencer.sequence(userId);
        for (;;) {
          if (hubs.get(userId) !== hub) return;
          const rows = await eventsAfter.all({ userId, after: hub.lastSeq, limit: READ_PAGE }, db);
          for (const row of rows) {
            const event = toStreamed(row);
            hub.lastSeq = event.seq;
            for (const listener of hub.listeners) listener(event);
          }
          if (rows.length < READ_PAGE) break;
        }
      } while (hub.dirty);
    } catch (error) {
      deps.onError(error);
    } finally {
      hub.reading = false;
    }
  }

  function notice(userId: string): void {
    const hub = hubs.get(userId);
    if (hub) void hub.ready.then(() => catchUp(userId, hub), () => {});
  }
  notices.onNotice(notice);
  // Notices sent while Redis was away are lost: look for everything newer.
  notices.onReconnect(() => {
    for (const userId of hubs.keys()) notice(userId);
  });
  const safety = setInterval(() => void checkAll().catch(deps.onError), SAFETY_CHECK_MS);
  safety.unref();

  /** The accounts streamed here with events not numbered yet, or numbered (elsewhere) beyond what was read. */
  async function checkAll(): Promise<void> {
    const userIds = [...hubs.keys()];
    for (let i = 0; i < userIds.length; i += READ_PAGE) {
      const some = userIds.slice(i, i + READ_PAGE);
      const pending = await db.selectFrom('events').select('user_id').distinct().where('user_id', 'in', some).where('seq', 'is', null).execute();
      for (const row of pending) notice(row.user_id);
      const counters = await db.selectFrom('event_sequences').select(['user_id', 'seq']).where('user_id', 'in', some).execute();
      for (const row of counters) if (Number(row.seq) > (hubs.get(row.user_id)?.lastSeq ?? Infinity)) notice(row.user_id);
    }
  }

  function createHub(userId: string): Hub {
    const hub: Hub = { listeners: new Set(), lastSeq: 0, dirty: false, reading: false, ready: Promise.resolve() };
    // Listen first, then number and take the last number: a notice cannot fall between the two.
    hub.ready = notices.listen(userId).then(async () => {
      hub.lastSeq = await sequencer.sequence(userId);
    });
    hubs.set(userId, hub);
    return hub;
  }

  return {
    /**
     * Hands `listener` every event of the account numbered after the returned `since`, in order,
     * until `stop()`. Events up to `since` are numbered, in the database, for the caller to replay.
     */
    async watch(userId: string, listener: FeedListener): Promise<{ since: number; stop(): void }> {
      let hub = hubs.get(userId) ?? createHub(userId);
      for (;;) {
        try {
          await hub.ready;
        } catch (error) {
          if (hubs.get(userId) === hub && hub.listeners.size === 0) {
            hubs.delete(userId);
            notices.unlisten(userId);
          }
          throw error;
        }
        // The account's last stream here may have closed meanwhile, taking the hub with it.
        if (hubs.get(userId) === hub) break;
        hub = hubs.get(userId) ?? createHub(userId);
      }
      hub.listeners.add(listener);
      return {
        since: hub.lastSeq,
        stop() {
          hub.listeners.delete(listener);
          if (hub.listeners.size === 0 && hubs.get(userId) === hub) {
            hubs.delete(userId);
            notices.unlisten(userId);
          }
        },
      };
    },
    close(): void {
      clearInterval(safety);
    },
  };
}
export type EventFeed = ReturnType<typeof createEventFeed>;
