import type { Kysely } from 'kysely';
import type { Database } from '../../kernel/db/schema.js';
import { preparedQuery } from '../../kernel/db/prepared-queries.js';
import type { EventSequencer } from '../../kernel/events/event-sequencer.js';
import type { EventType } from '../../kernel/events/event-types.js';
import type { EventNotices } from './new-event-notices.js';

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
const eventsAfter = preparedQuery((q, $: { orgId: string; after: number; limit: number }) =>
  q.selectFrom('events').select(STREAMED_COLUMNS).where('org_id', '=', $.orgId).where('seq', '>', $.after).orderBy('seq').limit($.limit));

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
 * This instance's view of the organizations it streams for: per organization one hub that hears
 * notices (new-event-notices.ts), numbers what was committed (event-sequencer.ts) and reads the
 * events it has not handed out yet, in order, from the database, once for all of the
 * organization's streams here.
 * Numbers are never given twice and never go back, so "after the last one I handed out" is all a hub needs
 * to know: a late, repeated or lost notice changes when events arrive, never which or in what order.
 */
export function createEventFeed(deps: { db: Kysely<Database>; sequencer: EventSequencer; notices: EventNotices; onError: (error: unknown) => void }) {
  const { db, sequencer, notices } = deps;
  const hubs = new Map<string, Hub>();

  async function catchUp(orgId: string, hub: Hub): Promise<void> {
    if (hub.reading) {
      hub.dirty = true;
      return;
    }
    hub.reading = true;
    try {
      do {
        hub.dirty = false;
        await sequencer.sequence(orgId);
        for (;;) {
          if (hubs.get(orgId) !== hub) return;
          const rows = await eventsAfter.all({ orgId, after: hub.lastSeq, limit: READ_PAGE }, db);
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

  function notice(orgId: string): void {
    const hub = hubs.get(orgId);
    if (hub) void hub.ready.then(() => catchUp(orgId, hub), () => {});
  }
  notices.onNotice(notice);
  // Notices sent while Redis was away are lost: look for everything newer.
  notices.onReconnect(() => {
    for (const orgId of hubs.keys()) notice(orgId);
  });
  const safety = setInterval(() => void checkAll().catch(deps.onError), SAFETY_CHECK_MS);
  safety.unref();

  /** The organizations streamed here with events not numbered yet, or numbered (elsewhere) beyond what was read. */
  async function checkAll(): Promise<void> {
    const orgIds = [...hubs.keys()];
    for (let i = 0; i < orgIds.length; i += READ_PAGE) {
      const some = orgIds.slice(i, i + READ_PAGE);
      const pending = await db.selectFrom('events').select('org_id').distinct().where('org_id', 'in', some).where('seq', 'is', null).execute();
      for (const row of pending) notice(row.org_id);
      const counters = await db.selectFrom('event_sequences').select(['org_id', 'seq']).where('org_id', 'in', some).execute();
      for (const row of counters) if (Number(row.seq) > (hubs.get(row.org_id)?.lastSeq ?? Infinity)) notice(row.org_id);
    }
  }

  function createHub(orgId: string): Hub {
    const hub: Hub = { listeners: new Set(), lastSeq: 0, dirty: false, reading: false, ready: Promise.resolve() };
    // Listen first, then number and take the last number: a notice cannot fall between the two.
    hub.ready = notices.listen(orgId).then(async () => {
      hub.lastSeq = await sequencer.sequence(orgId);
    });
    hubs.set(orgId, hub);
    return hub;
  }

  return {
    /**
     * Hands `listener` every event of the organization numbered after the returned `since`, in order,
     * until `stop()`. Events up to `since` are numbered, in the database, for the caller to replay.
     */
    async watch(orgId: string, listener: FeedListener): Promise<{ since: number; stop(): void }> {
      let hub = hubs.get(orgId) ?? createHub(orgId);
      for (;;) {
        try {
          await hub.ready;
        } catch (error) {
          if (hubs.get(orgId) === hub && hub.listeners.size === 0) {
            hubs.delete(orgId);
            notices.unlisten(orgId);
          }
          throw error;
        }
        // The organization's last stream here may have closed meanwhile, taking the hub with it.
        if (hubs.get(orgId) === hub) break;
        hub = hubs.get(orgId) ?? createHub(orgId);
      }
      hub.listeners.add(listener);
      return {
        since: hub.lastSeq,
        stop() {
          hub.listeners.delete(listener);
          if (hub.listeners.size === 0 && hubs.get(orgId) === hub) {
            hubs.delete(orgId);
            notices.unlisten(orgId);
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
