/** The account's live event stream: everything the credential may read, as it happens. */
import { ROUTES } from '../routes.js';
import type { EventStream, OpenStream, StreamOptions } from '../streams/event-stream.js';

export interface EventsStreamOptions extends StreamOptions {
  /** Patterns of the event types wanted: exact (`agent.created`), a group (`chat.*`) or `*`. Default: all. */
  types?: string[];
}

export function eventsResource(openStream: OpenStream) {
  return {
    /**
     * Live events of the whole account (`chat.message.delta`, `agent.updated`, `session.revoked`…),
     * reconnecting and resuming by itself: `for await (const event of gh.events.stream()) …`.
     */
    stream: ({ types, ...options }: EventsStreamOptions = {}): EventStream =>
      openStream({ ...options, path: ROUTES.streamEvents.at[1], query: { types: types?.length ? types.join(',') : undefined } }),
  };
}
