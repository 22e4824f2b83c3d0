import type { Kysely } from 'kysely';
import type { Bus } from '../../kernel/bus.js';
import type { Clock } from '../../kernel/clock.js';
import type { DialectName } from '../../kernel/db/database.js';
import type { Database } from '../../kernel/db/schema.js';
import type { AccountCache } from '../../identity/index.js';
import type { OrganizationCache } from '../../access/index.js';
import type { EventSignal } from '../../kernel/events/event-signal.js';
import { createEventSequencer } from '../../kernel/events/event-sequencer.js';
import { createEventFeed } from './event-feed.js';
import type { EventNotices } from './new-event-notices.js';
import { createStreamRegistry } from './stream-registry.js';
import type { StreamSlots } from './stream-slots.js';
import { createStreamsService } from './streams.service.js';

/**
 * Live streams, wired: every commit that recorded events becomes a notice (to this instance's
 * feed, and through Redis to the others); the feed numbers and reads the events for the streams
 * open here.
 */
export function createStreams(deps: {
  db: Kysely<Database>; dialect: DialectName; bus: Bus; accounts: Pick<AccountCache, 'get'>; organizations: Pick<OrganizationCache, 'get'>; clock: Clock; events: EventSignal; notices: EventNotices; slots: StreamSlots;
  heartbeatSeconds: number; onError: (error: unknown) => void;
}) {
  const { notices } = deps;
  deps.events.onCommitted((orgId) => notices.publish(orgId));
  const feed = createEventFeed({ db: deps.db, sequencer: createEventSequencer({ db: deps.db, dialect: deps.dialect }), notices, onError: deps.onError });
  const registry = createStreamRegistry({ bus: deps.bus, accounts: deps.accounts, organizations: deps.organizations, clock: deps.clock, heartbeatSeconds: deps.heartbeatSeconds, onError: deps.onError });
  const service = createStreamsService({ db: deps.db, feed, slots: deps.slots, registry });
  return {
    service,
    registry,
    async close(): Promise<void> {
      registry.closeAll();
      registry.stop();
      feed.close();
      deps.slots.close();
      await notices.close();
    },
  };
}
export type Streams = ReturnType<typeof createStreams>;
