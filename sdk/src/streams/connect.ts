/**
 * One connection of a live stream, with the limits a long-lived connection needs: a time limit
 * for the server to answer, an idle limit on reads (a connection that went dead without a FIN,
 * as on a phone switching networks, would otherwise wait forever: the server's heartbeats are
 * what keep it alive), and the stream's signal, which ends the connection whenever it fires.
 */
import { clientError } from '../errors.js';
import type { StreamConnection, Transport } from './transport.js';

export interface ConnectOptions {
  transport: Transport;
  url: string;
  headers: Record<string, string>;
  /** Ends the connection, open or opening, when it fires: close(), the caller's signal. */
  signal: AbortSignal;
  /** Until the answer's headers arrive; 0: no limit. */
  openTimeoutMs: number;
  /** A read that waits longer than this for the next bytes fails with `timeout`; 0: no limit. */
  idleTimeoutMs: number;
}

export async function connect(options: ConnectOptions): Promise<StreamConnection> {
  const attempt = new AbortController();
  const abort = () => attempt.abort();
  if (options.signal.aborted) abort();
  else options.signal.addEventListener('abort', abort, { once: true });
  const release = () => options.signal.removeEventListener('abort', abort);

  let timedOut = false;
  const timer =
    options.openTimeoutMs > 0
      ? setTimeout(() => {
          timedOut = true;
          abort();
        }, options.openTimeoutMs)
      : undefined;

  let connection: StreamConnection;
  try {
    connection = await options.transport({ url: options.url, headers: options.headers, signal: attempt.signal });
  } catch (error) {
    release();
    if (timedOut) throw clientError('timeout', `The event stream did not open within ${options.openTimeoutMs} ms.`, error);
    throw error;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }

  const close = () => {
    release();
    connection.close();
    abort();
  };
  return {
    get recycled() {
      return connection.recycled;
    },
    read: () => (options.idleTimeoutMs > 0 ? readWithin(connection, options.idleTimeoutMs, close) : connection.read()),
    close,
  };
}

/** The next read, or a `timeout` (after closing the connection) when nothing arrives for `ms`. */
function readWithin(connection: StreamConnection, ms: number, close: () => void): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      close();
      reject(clientError('timeout', `Nothing arrived on the event stream for ${ms} ms (not even a heartbeat).`));
    }, ms);
    connection.read().then(
      (text) => {
        clearTimeout(timer);
        resolve(text);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
