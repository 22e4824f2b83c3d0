import type { ServerResponse } from 'node:http';
import type { StreamedEvent } from './event-feed.js';

/** Why the server ends a stream; the client is told in a last `stream.closed` event. */
export type CloseReason = 'credential_revoked' | 'credential_changed' | 'token_expired' | 'account_disabled' | 'chat_deleted' | 'shutdown' | 'too_slow';

/** Whose credential holds a stream open: what revocation and expiry are matched against. */
export interface StreamOwner {
  /** The user whose credential opened it (a key's: the member who created the key). */
  userId: string;
  /** The organization it reads. */
  orgId: string;
  sessionId: string | null;
  apiKeyHash: string | undefined;
  /** Epoch ms; null: never. */
  expiresAt: number | null;
}

/** What a stream shows of an event: its name on this stream, nothing, or the end of the stream. */
export type Presentation = { name: string } | { close: CloseReason } | null;

/** A reader that does not keep up is dropped (it reconnects and resumes) rather than buffered for. */
const MAX_BUFFERED_BYTES = 1 << 20;
/** How long a client waits before reconnecting after a drop (the SSE `retry` field). */
const RETRY_MS = 2_000;

export interface LiveStream {
  readonly owner: StreamOwner;
  /**
   * Starts writing to the response, whose head the caller has written. `position`: when the stream
   * starts live (nothing to replay), the event number it starts after, sent as an `id:` line alone,
   * so a client's reconnect resumes from exactly there.
   */
  attach(out: ServerResponse, position: number | null): void;
  /** From the feed: buffered while the replay runs, then written. */
  deliver(event: StreamedEvent): void;
  /** Writes an event now (the replay), unless one with this number or a later one was written. */
  write(event: StreamedEvent): void;
  /** Ends the replay: what the feed handed over meanwhile goes out, then everything live. */
  goLive(since: number): void;
  heartbeat(): void;
  close(reason?: CloseReason): void;
  readonly closed: boolean;
}

/**
 * One open Server-Sent Events stream, written straight to the HTTP response (no stream in
 * between: an idle stream's memory is mostly the connection's own). Each event goes out once, in
 * order: `sent` is the number of the last event written, and anything not after it is dropped,
 * which is what makes the hand-over from replay to live exact. Until `attach`, events the feed
 * hands over wait with those that arrive during the replay.
 */
export function createLiveStream(input: { owner: StreamOwner; lastEventId: number; present: (event: StreamedEvent) => Presentation; onClosed: () => void }): LiveStream {
  const { present } = input;
  let out: ServerResponse | undefined;
  let sent = input.lastEventId;
  let pending: StreamedEvent[] | null = [];
  let closed = false;
  // Closed before it was attached (revoked while it was being set up): said once attached.
  let closedEarly: CloseReason | undefined;

  const finish = () => {
    if (closed) return;
    closed = true;
    input.onClosed();
  };

  function send(chunk: string): void {
    if (closed || !out) return;
    out.write(chunk);
    if (out.writableLength > MAX_BUFFERED_BYTES) stream.close('too_slow');
  }

  const stream: LiveStream = {
    owner: input.owner,
    attach(response, position) {
      out = response;
      if (closed) {
        if (closedEarly) out.write(`event: stream.closed\ndata: {"reason":"${closedEarly}"}\n\n`);
        out.end();
        return;
      }
      out.on('close', finish);
      out.on('error', finish);
      // The client may have gone while the stream was being set up.
      if (out.destroyed) return finish();
      out.write(position === null ? `retry: ${RETRY_MS}\n\n` : `retry: ${RETRY_MS}\nid: ${position}\n\n`);
    },
    get closed() {
      return closed;
    },
    deliver(event) {
      if (pending) pending.push(event);
      else stream.write(event);
    },
    write(event) {
      if (closed || event.seq <= sent) return;
      sent = event.seq;
      const shown = present(event);
      if (shown === null) return;
      if ('close' in shown) return stream.close(shown.close);
      send(`id: ${event.seq}\nevent: ${shown.name}\ndata: {"id":"${event.id}","type":"${shown.name}","created_at":"${event.createdAt}","data":${event.dataJson}}\n\n`);
    },
    goLive(since) {
      // Nothing before `since` is missing from the replay; a client ahead of us keeps its number.
      sent = Math.max(sent, since);
      const buffered = pending ?? [];
      pending = null;
      for (const event of buffered) stream.write(event);
    },
    heartbeat() {
      send(': ping\n\n');
    },
    close(reason) {
      if (closed) return;
      if (reason === 'too_slow') {
        // Its buffer is full already: drop the connection; the client reconnects and resumes.
        out?.destroy();
      } else if (out) {
        if (reason) out.write(`event: stream.closed\ndata: {"reason":"${reason}"}\n\n`);
        out.end();
      } else {
        closedEarly = reason;
      }
      finish();
    },
  };
  return stream;
}
