/**
 * What the SSE messages of a Gatehouse stream mean: each event's `data:` is one line of JSON, the
 * event envelope, and its `id:` the decimal position used to resume; `stream.closed` carries why
 * the server ended the stream.
 */
import { clientError } from '../errors.js';
import type { SseMessage } from './sse-parser.js';

/** One event of a live stream: the server's envelope plus its position in the stream. */
export interface StreamEvent<TData = unknown> {
  /** The event's own id, `evt_…`. */
  id: string;
  /** e.g. `message.delta` on a chat stream, `chat.message.delta` on the account stream. */
  type: string;
  /** ISO 8601. */
  created_at: string;
  data: TData;
  /**
   * The SSE `id:`: increases along the account's events (a chat stream skips other chats').
   * Pass it (or the stream's `lastEventId`) as `lastEventId` to resume after this event.
   */
  sequence: number;
}

/** The last message of a stream the server ends itself (it has no `id:`). */
export const STREAM_CLOSED = 'stream.closed';

export function toStreamEvent(message: SseMessage): StreamEvent {
  const sequence = /^[0-9]+$/.test(message.id) ? Number(message.id) : Number.NaN;
  let envelope: unknown = null;
  try {
    envelope = JSON.parse(message.data);
  } catch {
    // reported below
  }
  if (!Number.isSafeInteger(sequence) || typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) {
    throw clientError('invalid_response', `The stream sent an event that is not a Gatehouse event (event ${JSON.stringify(message.event)}, id ${JSON.stringify(message.id)}).`);
  }
  const fields = envelope as Record<string, unknown>;
  return { ...fields, type: typeof fields.type === 'string' ? fields.type : message.event, sequence } as StreamEvent;
}

/** `stream.closed`'s reason (`token_expired`, `chat_deleted`…); `unknown` when it gives none. */
export function closedReason(message: SseMessage): string {
  try {
    const reason = (JSON.parse(message.data) as { reason?: unknown } | null)?.reason;
    return typeof reason === 'string' ? reason : 'unknown';
  } catch {
    return 'unknown';
  }
}
