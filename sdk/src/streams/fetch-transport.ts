/**
 * The event stream over fetch: the body's reader, decoded with TextDecoder in stream mode so a
 * UTF-8 character split between two chunks comes out whole. Reads happen only when the iterator
 * asks for more, so a slow consumer leaves the bytes in the socket (TCP pushes back on the
 * server) instead of in memory.
 */
import { clientError } from '../errors.js';
import { errorFromAnswer, type FetchLike } from '../http.js';
import { connectionLost, notAnEventStream, type StreamConnection, type Transport } from './transport.js';

export interface FetchTransportOptions {
  /** The client's configured fetch. */
  fetch: FetchLike;
  /** For Retry-After given as an HTTP date. */
  now: () => number;
}

export function fetchTransport(options: FetchTransportOptions): Transport {
  return async ({ url, headers, signal }) => {
    let response: Response;
    try {
      response = await options.fetch(url, { method: 'GET', headers, signal });
    } catch (cause) {
      throw connectionLost(cause);
    }
    if (!response.ok) {
      let text: string;
      try {
        text = await response.text();
      } catch (cause) {
        throw connectionLost(cause);
      }
      throw errorFromAnswer(response.status, response.headers, text, options.now());
    }
    const wrongType = notAnEventStream(response.status, response.headers);
    if (wrongType) {
      void response.body?.cancel().catch(() => undefined);
      throw wrongType;
    }
    if (!response.body || typeof response.body.getReader !== 'function') {
      throw clientError('invalid_response', "This fetch cannot stream a response body (React Native's cannot): use transport: 'xhr'.");
    }
    return readerConnection(response.body.getReader(), signal);
  };
}

function readerConnection(reader: ReadableStreamDefaultReader<Uint8Array>, signal: AbortSignal): StreamConnection {
  const decoder = new TextDecoder();
  let finished = false;
  return {
    recycled: false,
    async read() {
      try {
        while (!finished) {
          const { done, value } = await reader.read();
          if (done) {
            finished = true;
            const rest = decoder.decode();
            return rest === '' ? null : rest;
          }
          // A chunk holding only the start of a multi-byte character decodes to '': read on.
          const text = decoder.decode(value, { stream: true });
          if (text !== '') return text;
        }
        return null;
      } catch (cause) {
        // Closed by us (close() or the request's signal) is an end, not a failure.
        if (finished || signal.aborted) return null;
        finished = true;
        throw connectionLost(cause);
      }
    },
    close() {
      if (finished) return;
      finished = true;
      reader.cancel().catch(() => undefined);
    },
  };
}
