/**
 * What a chat stream's events do to the messages a screen shows, as pure functions: the messages
 * the stream announced (`message.created`, grown by `message.delta`, replaced by
 * `message.completed`) are kept apart from the pages the list fetched, and the two are merged for
 * display. A fresh page therefore never wipes out what arrived live, and a message in both shows
 * once, in its most advanced version.
 */
import type { Schemas, StreamEvent } from '@gatehouse/sdk';

type Message = Schemas['Message'];

/** A message the stream announced, with the number of its deltas its `content` holds. */
export interface LiveMessage {
  message: Message;
  /**
   * The sequence of the last delta in `content` (0: none yet). null once a delta was missed (a
   * gap in the sequence): from then on only a fetched copy or `message.completed` can say more.
   */
  applied: number | null;
}

/** The messages one chat's stream announced, by id. */
export type LiveMessages = ReadonlyMap<string, LiveMessage>;

export const NO_LIVE_MESSAGES: LiveMessages = new Map();

export interface ChatEventResult {
  live: LiveMessages;
  /**
   * A delta could not be applied (its message was not announced on this stream, or a delta before
   * it was missed): a fetched copy of the newest messages has to show the text instead.
   */
  resync: boolean;
}

interface MessageDelta {
  message_id: string;
  sequence: number;
  content: string;
}

export function applyChatEvent(live: LiveMessages, event: StreamEvent): ChatEventResult {
  switch (event.type) {
    case 'message.created':
    case 'message.completed': {
      if (!isMessage(event.data)) return { live, resync: false };
      const message = event.data;
      const known = live.get(message.id);
      // A replayed or late `created` must not undo deltas or the completion already applied.
      if (known && event.type === 'message.created') return { live, resync: false };
      return { live: withEntry(live, { message, applied: known?.applied ?? 0 }), resync: false };
    }
    case 'message.delta': {
      if (!isDelta(event.data)) return { live, resync: false };
      const delta = event.data;
      const known = live.get(delta.message_id);
      if (!known) return { live, resync: true };
      if (known.message.status === 'completed') return { live, resync: false };
      if (known.applied === null) return { live, resync: true };
      if (delta.sequence <= known.applied) return { live, resync: false };
      if (delta.sequence > known.applied + 1) return { live: withEntry(live, { message: known.message, applied: null }), resync: true };
      const message = { ...known.message, content: known.message.content + delta.content, delta_sequence: delta.sequence };
      return { live: withEntry(live, { message, applied: delta.sequence }), resync: false };
    }
    default:
      return { live, resync: false };
  }
}

/**
 * Which of two copies of one message to show. Text only grows while a message streams and is
 * final once completed, so a completed copy wins, then the longer text; on a tie, `b`.
 */
export function moreAdvanced(a: Message, b: Message): Message {
  if (a.status !== b.status) return a.status === 'completed' ? a : b;
  return a.content.length > b.content.length ? a : b;
}

/** Newest first, as the API lists messages: ids grow with time. */
const newerFirst = (a: Message, b: Message) => (a.id > b.id ? -1 : a.id < b.id ? 1 : 0);

/**
 * The list to show: the fetched `pages` with each message the stream announced in its most
 * advanced version, and the announced messages the pages do not hold yet in their place by id.
 * While older pages remain (`hasMore`), an announced message older than the oldest one fetched
 * is left to the page that holds it.
 */
export function mergeLiveMessages(pages: readonly Message[], live: LiveMessages, hasMore: boolean): Message[] {
  if (live.size === 0) return pages as Message[];
  const inPages = new Set<string>();
  const merged = pages.map((message) => {
    inPages.add(message.id);
    const announced = live.get(message.id);
    // On a tie the fetched copy: the events' copy can carry more fields (`agent_id` on message.created).
    return announced ? moreAdvanced(announced.message, message) : message;
  });
  const oldest = pages.at(-1);
  const extra = [...live.values()]
    .map((entry) => entry.message)
    .filter((message) => !inPages.has(message.id) && (!hasMore || oldest === undefined || message.id > oldest.id))
    .sort(newerFirst);
  return extra.length === 0 ? merged : insertInOrder(merged, extra);
}

/**
 * Messages just fetched (a first page fetched again, `send()`'s answer) folded into the list shown
 * so far, whose older pages stay: each message in its most advanced copy, the new ones in their
 * place.
 */
export function mergeNewest(items: readonly Message[], newest: readonly Message[]): Message[] {
  const fresh = new Map(newest.map((message) => [message.id, message]));
  const merged = items.map((message) => {
    const other = fresh.get(message.id);
    if (!other) return message;
    fresh.delete(message.id);
    return moreAdvanced(message, other);
  });
  return fresh.size === 0 ? merged : insertInOrder(merged, [...fresh.values()].sort(newerFirst));
}

/** `extra` (newest first) slotted into `list` (newest first) by id. */
function insertInOrder(list: readonly Message[], extra: readonly Message[]): Message[] {
  const out: Message[] = [];
  let next = 0;
  for (const message of list) {
    while (next < extra.length && extra[next]!.id > message.id) out.push(extra[next++]!);
    out.push(message);
  }
  while (next < extra.length) out.push(extra[next++]!);
  return out;
}

function withEntry(live: LiveMessages, entry: LiveMessage): LiveMessages {
  const next = new Map(live);
  next.set(entry.message.id, entry);
  return next;
}

function isMessage(data: unknown): data is Message {
  const m = data as Partial<Message> | null;
  return typeof m === 'object' && m !== null && typeof m.id === 'string' && typeof m.content === 'string' && (m.status === 'streaming' || m.status === 'completed');
}

function isDelta(data: unknown): data is MessageDelta {
  const d = data as Partial<MessageDelta> | null;
  return typeof d === 'object' && d !== null && typeof d.message_id === 'string' && Number.isSafeInteger(d.sequence) && typeof d.content === 'string';
}
