/**
 * What the chat page shows, merged from sources that overlap: pages of the message list, the
 * answers to the page's own calls, and the chat's live stream (whose events may arrive before,
 * between or after the pages, and again when the stream is replayed from the chat's first event).
 * Every merge is idempotent and does not depend on the order the sources arrive in:
 *
 * - a message is kept once, by id (a message sent here arrives from the POST and from the stream);
 * - a completed message is final: nothing changes it afterwards;
 * - a streaming message grows by its deltas, each applied once, in order. Its text from a list page
 *   holds an unknown number of them; such a message, or a delta that cannot be placed, makes
 *   `needsReplay` true, and a stream from the chat's first event rebuilds the text exactly
 *   (its `message.created` restarts the count, its deltas follow).
 */
import type { Chat, Message, StreamEvent } from './api.ts';

interface Entry {
  message: Message;
  /** How many deltas `message.content` holds; null when unknown (a streaming message as a list page showed it). */
  applied: number | null;
}

export interface MessagePage {
  data: Message[];
  next_cursor: string | null;
}

export interface ChatLog {
  chat: Chat | null;
  entries: ReadonlyMap<string, Entry>;
  /** Whether the first page of messages is in. */
  loaded: boolean;
  /** The cursor of the older messages not loaded yet. */
  olderCursor: string | null;
  /** While older messages are not loaded: the oldest loaded one. Events about older ones are left out. */
  floor: string | null;
  /** A delta could not be placed (its message, or deltas before it, were missed). */
  lost: boolean;
}

export type ChatLogAction =
  | { type: 'loaded'; chat: Chat; page: MessagePage }
  | { type: 'earlier'; page: MessagePage }
  | { type: 'event'; event: StreamEvent }
  /** The answer to a message posted from this page. */
  | { type: 'message'; message: Message }
  /** The answer to a rename from this page. */
  | { type: 'chat'; chat: Chat }
  /** A stream from the chat's first event has started. */
  | { type: 'replaying' };

interface Delta {
  message_id: string;
  sequence: number;
  content: string;
}

export const emptyChatLog: ChatLog = { chat: null, entries: new Map(), loaded: false, olderCursor: null, floor: null, lost: false };

/** The later of two versions of the chat (a replayed `chat.updated` does not undo a newer title). */
function newerChat(current: Chat | null, next: Chat): Chat {
  return current && current.updated_at > next.updated_at ? current : next;
}

/** Merges one message, as a snapshot (`list`) or as it was created (`created`, its delta count known: 0). */
function merge(entries: Map<string, Entry>, message: Message, source: 'list' | 'created'): void {
  const current = entries.get(message.id);
  if (current?.message.status === 'completed') return;
  if (message.status === 'completed') {
    entries.set(message.id, { message, applied: null });
    return;
  }
  if (current && current.applied !== null) return; // followed since its creation: already exact
  entries.set(message.id, { message, applied: source === 'created' ? 0 : null });
}

function applyDelta(log: ChatLog, entries: Map<string, Entry>, delta: Delta): boolean {
  const current = entries.get(delta.message_id);
  if (!current) return log.floor === null || delta.message_id > log.floor; // older than the loaded page: not shown
  if (current.message.status === 'completed') return false;
  if (current.applied === null || delta.sequence > current.applied + 1) return true;
  if (delta.sequence <= current.applied) return false; // already in the text
  entries.set(delta.message_id, { message: { ...current.message, content: current.message.content + delta.content, delta_sequence: delta.sequence }, applied: delta.sequence });
  return false;
}

function mergePage(log: ChatLog, page: MessagePage): Pick<ChatLog, 'entries' | 'olderCursor' | 'floor'> {
  const entries = new Map(log.entries);
  for (const message of page.data) merge(entries, message, 'list');
  const floor = page.next_cursor === null ? null : page.data.reduce<string | null>((oldest, m) => (oldest === null || m.id < oldest ? m.id : oldest), null);
  if (floor !== null) for (const id of entries.keys()) if (id < floor) entries.delete(id);
  return { entries, olderCursor: page.next_cursor, floor };
}

function applyEvent(log: ChatLog, event: StreamEvent): ChatLog {
  switch (event.type) {
    case 'message.created':
    case 'message.completed': {
      const message = event.data as Message;
      if (log.floor !== null && message.id < log.floor) return log;
      const entries = new Map(log.entries);
      merge(entries, message, 'created');
      return { ...log, entries };
    }
    case 'message.delta': {
      const entries = new Map(log.entries);
      const lost = applyDelta(log, entries, event.data as Delta);
      return { ...log, entries, lost: log.lost || lost };
    }
    case 'chat.updated':
      return { ...log, chat: newerChat(log.chat, event.data as Chat) };
    default:
      return log;
  }
}

export function chatLogReducer(log: ChatLog, action: ChatLogAction): ChatLog {
  switch (action.type) {
    case 'loaded':
      return { ...log, ...mergePage(log, action.page), chat: newerChat(log.chat, action.chat), loaded: true };
    case 'earlier':
      return { ...log, ...mergePage(log, action.page) };
    case 'event':
      return applyEvent(log, action.event);
    case 'message': {
      const entries = new Map(log.entries);
      merge(entries, action.message, 'created');
      return { ...log, entries };
    }
    case 'chat':
      return { ...log, chat: newerChat(log.chat, action.chat) };
    case 'replaying':
      return { ...log, lost: false };
  }
}

/** Oldest first, as a conversation reads (ids grow with time). */
export function messagesOf(log: ChatLog): Message[] {
  return [...log.entries.values()].map((e) => e.message).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Whether only a replay of the chat's events can make the texts exact. */
export function needsReplay(log: ChatLog): boolean {
  if (log.lost) return true;
  for (const entry of log.entries.values()) if (entry.message.status === 'streaming' && entry.applied === null) return true;
  return false;
}
