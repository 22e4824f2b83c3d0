/**
 * What a streaming transport does, whatever it is built on: open one HTTP GET, fail with the
 * GatehouseError the rest of the SDK would throw for that answer, and hand out the body's text
 * as it arrives. Two implementations: fetch with a readable body (browsers, Node, Deno, Bun) and
 * XMLHttpRequest (React Native, whose fetch buffers a whole body and never resolves on an
 * endless one).
 */
import { clientError, GatehouseError, type HeaderLookup } from '../errors.js';

export interface StreamRequest {
  url: string;
  headers: Record<string, string>;
  /** Aborting it cancels the request, or ends the connection once open. */
  signal: AbortSignal;
}

/** An open event stream (a 2xx answer with `text/event-stream`). */
export interface StreamConnection {
  /**
   * The next piece of the body as text: at least one character, split anywhere. null once the
   * stream ended or was closed; rejects with a `network_error` when the connection broke.
   * One read at a time.
   */
  read(): Promise<string | null>;
  /** Ends the connection (idempotent); a pending read resolves null. */
  close(): void;
  /**
   * True when the transport ended the connection itself to bound its memory (XMLHttpRequest's
   * responseText only grows): nothing went wrong, so reconnect at once.
   */
  readonly recycled: boolean;
}

/** Opens a stream, or rejects with a GatehouseError (the server's problem, network_error…). */
export type Transport = (request: StreamRequest) => Promise<StreamConnection>;

export type TransportChoice = 'auto' | 'fetch' | 'xhr';

/**
 * `auto`: XMLHttpRequest on React Native (its fetch cannot stream) and wherever fetch or
 * ReadableStream is missing; fetch everywhere else.
 */
export function resolveTransportChoice(choice: TransportChoice, hasOwnFetch: boolean): 'fetch' | 'xhr' {
  if (choice !== 'auto') return choice;
  const global = globalThis as { navigator?: { product?: string }; fetch?: unknown; ReadableStream?: unknown };
  if (global.navigator?.product === 'ReactNative') return 'xhr';
  const canFetch = hasOwnFetch || typeof global.fetch === 'function';
  return canFetch && typeof global.ReadableStream === 'function' ? 'fetch' : 'xhr';
}

/**
 * A 2xx that is not an event stream (a captive portal's page, a proxy rewriting the answer):
 * reading it as events would be wrong and reconnecting would get the same, so it is an error.
 */
export function notAnEventStream(status: number, headers: HeaderLookup): GatehouseError | null {
  const type = headers.get('content-type') ?? '';
  if (/^\s*text\/event-stream\b/i.test(type)) return null;
  return new GatehouseError({
    code: 'invalid_response',
    status,
    detail: `Expected text/event-stream, got HTTP ${status} with ${type ? `content-type ${type}` : 'no content-type'}.`,
    requestId: headers.get('x-request-id'),
  });
}

export function connectionLost(cause: unknown): GatehouseError {
  return clientError('network_error', `The event stream's connection failed: ${cause instanceof Error ? cause.message : String(cause)}`, cause);
}
