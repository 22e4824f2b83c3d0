/**
 * A live stream that outlives its connections: an async iterable of events that reconnects
 * after network failures and server restarts, resumes with Last-Event-ID so no event is lost or
 * handed out twice, refreshes the session's access token when the server says it expired, and
 * gives up (throwing the GatehouseError) only when reconnecting cannot help.
 *
 * Reading is pulled by the consumer: the next bytes are read only once the events already
 * parsed were handed out, so a slow consumer holds at most one chunk's events in memory (on
 * XMLHttpRequest, see xhr-transport.ts for its bound).
 */
import { refreshMayCure, withOrganization } from '../core.js';
import { GatehouseError } from '../errors.js';
import { buildUrl, type HttpConfig } from '../http.js';
import type { SessionManager } from '../session.js';
import { sleep } from '../signals.js';
import { connect } from './connect.js';
import { closedReason, STREAM_CLOSED, toStreamEvent, type StreamEvent } from './envelope.js';
import { fetchTransport } from './fetch-transport.js';
import { createBackoff, waitAfterFailure } from './reconnect.js';
import { createSseParser, type SseMessage } from './sse-parser.js';
import { resolveTransportChoice, type StreamConnection, type Transport, type TransportChoice } from './transport.js';
import { xhrTransport } from './xhr-transport.js';

export type { StreamEvent } from './envelope.js';
export type { TransportChoice } from './transport.js';

export interface StreamOptions {
  /**
   * Resume after this event: its `sequence` (or a stream's `lastEventId`). The server first
   * replays every later event, then goes live.
   */
  lastEventId?: string | number | null;
  /** Aborting it ends the iteration (without an error) and closes the connection. */
  signal?: AbortSignal;
  /**
   * `auto` (default): XMLHttpRequest on React Native and where fetch cannot stream, else fetch
   * (the client's `fetch` option when given).
   */
  transport?: TransportChoice;
  /**
   * A connection on which nothing arrives for this long (not even the server's heartbeat, every
   * ~15 s) is taken for dead and replaced. Default 45 000 ms; 0 turns it off.
   */
  idleTimeoutMs?: number;
  /**
   * Called each time a connection is established (the server answered 200): from then on no event
   * is missed. Load a first page of what the stream will update after the first call, and nothing
   * falls between the two.
   */
  onOpen?: () => void;
}

/** Events, in order, each once; `for await` over it. Iterable once. */
export interface EventStream extends AsyncIterable<StreamEvent> {
  /** Ends the iteration (a pending `next()` resolves done) and closes the connection. */
  close(): void;
  /** The `id:` of the last event handed out (or the `lastEventId` given): store it to resume later. */
  readonly lastEventId: string | null;
}

export interface StreamConfig {
  http: HttpConfig;
  sessions: SessionManager;
  apiKey?: string | undefined;
  /** The organization a session's streams act for; null: the personal one. Read once, when a stream opens. */
  organization: () => string | null;
  /** Limit for the server to answer each connection attempt; 0: none. */
  timeoutMs: number;
  /** The client was given its own fetch: `auto` uses it wherever fetch can stream. */
  hasOwnFetch: boolean;
}

export interface OpenStreamRequest extends Omit<StreamOptions, 'transport'> {
  /** With its parameters filled in, e.g. `/v1/chats/cht_…/stream`. */
  path: string;
  query?: Record<string, unknown>;
  /** A choice, or a transport itself (tests; a platform with its own). */
  transport?: TransportChoice | Transport;
}

export type OpenStream = (request: OpenStreamRequest) => EventStream;

export const DEFAULT_IDLE_TIMEOUT_MS = 45_000;

/** stream.closed reasons after which the server expects the client back at once. */
const RECONNECT_AT_ONCE = new Set(['token_expired', 'shutdown', 'too_slow', 'credential_revoked', 'credential_changed', 'account_disabled']);
/** Reconnecting after these is answered 401/403, which ends the stream with that error. */
const REVOKED = new Set(['credential_revoked', 'account_disabled']);

export function openStream(config: StreamConfig, request: OpenStreamRequest): EventStream {
  let lastEventId = normalizeLastEventId(request.lastEventId);
  const transport = pickTransport(config, request.transport ?? 'auto');
  const url = buildUrl(config.http.baseUrl, request.path, request.query);
  const idleTimeoutMs = request.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;

  // Fires on close(), on the caller's signal, and when the iteration ends: ends the connection
  // and any wait in progress.
  const lifetime = new AbortController();
  const stop = () => {
    lifetime.abort();
    request.signal?.removeEventListener('abort', stop);
  };
  if (request.signal?.aborted) stop();
  else request.signal?.addEventListener('abort', stop, { once: true });

  // A stream follows what it was opened for: switching the client's organization later does not move it.
  const organization = config.organization();
  const headersFor = (sessionToken: string | null): Record<string, string> => {
    const token = sessionToken ?? config.apiKey ?? null;
    let headers: Record<string, string> = { accept: 'text/event-stream' };
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (sessionToken !== null) headers = withOrganization(headers, organization);
    if (lastEventId !== null) headers['last-event-id'] = lastEventId;
    return headers;
  };

  async function* run(): AsyncGenerator<StreamEvent, void, undefined> {
    const backoff = createBackoff();
    let lastSequence = lastEventId === null ? -1 : Number(lastEventId);
    let refreshedAfter401 = false; // one refresh per failed opening: a second 401 is final
    let revokedBefore = false; // a revocation again, with no event in between, is final
    let reconnectedAtOnce = false; // an immediate reconnect again, with no event in between, backs off
    let connection: StreamConnection | null = null;
    try {
      while (!lifetime.signal.aborted) {
        let waitMs: number;
        try {
          // A stored session wins over the API key, as for every other call (core.ts).
          const sessionToken = await config.sessions.accessToken(lifetime.signal);
          try {
            connection = await connect({ transport, url, headers: headersFor(sessionToken), signal: lifetime.signal, openTimeoutMs: config.timeoutMs, idleTimeoutMs });
          } catch (error) {
            if (refreshedAfter401 || sessionToken === null || !refreshMayCure(error)) throw error;
            // Expired early (clock skew) or replaced: refresh once and open again.
            await config.sessions.refreshAfterRejection(sessionToken, lifetime.signal);
            refreshedAfter401 = true;
            continue;
          }
          refreshedAfter401 = false;
          request.onOpen?.();

          const pending: SseMessage[] = [];
          const parser = createSseParser({
            onEvent: (message) => pending.push(message),
            onRetry: (ms) => backoff.setInitial(ms),
            // Where a live stream starts: a reconnect resumes from there, so nothing after it is missed.
            onId: (id) => {
              const position = Number(id);
              if (/^\d+$/.test(id) && position > lastSequence) {
                lastSequence = position;
                lastEventId = id;
              }
            },
          });
          let reason: string | null = null;
          let delivered = false;
          reading: for (;;) {
            for (let message = pending.shift(); message; message = pending.shift()) {
              if (message.event === STREAM_CLOSED) {
                reason = closedReason(message);
                break reading;
              }
              const event = toStreamEvent(message);
              if (event.sequence <= lastSequence) continue; // replayed after a reconnect: already handed out
              lastSequence = event.sequence;
              lastEventId = String(event.sequence);
              if (!delivered) {
                delivered = true;
                backoff.reset();
                revokedBefore = false;
                reconnectedAtOnce = false;
              }
              yield event;
              if (lifetime.signal.aborted) return;
            }
            const text = await connection.read();
            if (text === null) break;
            parser.feed(text);
          }
          const recycled = connection.recycled;
          connection.close();
          connection = null;
          if (lifetime.signal.aborted || reason === 'chat_deleted') return;

          if (reason !== null && REVOKED.has(reason)) {
            if (revokedBefore) throw revokedError(reason);
            revokedBefore = true;
          }
          // The server will refuse the token it just expired: bring a fresh one.
          if (reason === 'token_expired' && sessionToken !== null) await config.sessions.refreshAfterRejection(sessionToken, lifetime.signal);
          const atOnce = recycled || (reason !== null && RECONNECT_AT_ONCE.has(reason));
          if (atOnce && !reconnectedAtOnce) {
            reconnectedAtOnce = true;
            waitMs = 0;
          } else {
            waitMs = backoff.next(); // the server ended the stream, or keeps ending it at once
          }
        } catch (error) {
          connection?.close();
          connection = null;
          if (lifetime.signal.aborted) return;
          waitMs = waitAfterFailure(error, backoff); // rethrows what reconnecting cannot cure
        }
        if (waitMs > 0 && !(await sleep(waitMs, lifetime.signal).then(() => true, () => false))) return;
      }
    } finally {
      connection?.close();
      stop();
    }
  }

  let iterated = false;
  return {
    [Symbol.asyncIterator]() {
      if (iterated) throw new TypeError('An event stream can be iterated only once: open another one (with lastEventId to resume).');
      iterated = true;
      return run();
    },
    close: stop,
    get lastEventId() {
      return lastEventId;
    },
  };
}

function pickTransport(config: StreamConfig, choice: TransportChoice | Transport): Transport {
  if (typeof choice === 'function') return choice;
  return resolveTransportChoice(choice, config.hasOwnFetch) === 'xhr' ? xhrTransport({ now: config.http.now }) : fetchTransport({ fetch: config.http.fetch, now: config.http.now });
}

/** `42`, `'42'` → `'42'`; empty → null (start live); anything else is a programming error. */
function normalizeLastEventId(value: string | number | null | undefined): string | null {
  if (value === undefined || value === null || value === '') return null;
  const text = String(value).trim();
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new TypeError(`lastEventId must be the sequence of an event (a non-negative integer), got ${JSON.stringify(value)}`);
  }
  return String(Number(text));
}

/** The stream was ended for a revoked credential or a disabled account, twice in a row. */
function revokedError(reason: string): GatehouseError {
  return new GatehouseError({
    code: reason,
    status: reason === 'account_disabled' ? 403 : 401,
    detail: reason === 'account_disabled' ? 'The account was disabled.' : 'The credential was revoked.',
  });
}
