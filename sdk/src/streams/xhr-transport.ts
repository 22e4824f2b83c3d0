/**
 * The event stream over XMLHttpRequest, for React Native (its fetch buffers the whole body and
 * never resolves on an endless stream) and for platforms without a streaming fetch.
 *
 * The status is known at readyState 2 (or 3); each progress event makes responseText longer, and
 * reads hand out what lies past the offset already handed out. An error status waits for the
 * whole (small) body at load and becomes the same GatehouseError fetch would give.
 *
 * Memory: responseText keeps everything received, and the platform keeps receiving while the
 * consumer is slow (XMLHttpRequest cannot pause). So once responseText reaches
 * `maxResponseChars` (1 MiB by default) the transport ends the connection itself, at the end of
 * an event, keeping only the text not read yet; the iterator hands that out and reconnects at
 * once with Last-Event-ID. About that much text (plus the events not consumed yet) is held per
 * stream at most.
 */
import { clientError, type GatehouseError, type HeaderLookup } from '../errors.js';
import { errorFromAnswer } from '../http.js';
import { connectionLost, notAnEventStream, type StreamConnection, type Transport } from './transport.js';

export interface XhrTransportOptions {
  /** For Retry-After given as an HTTP date. */
  now: () => number;
  /** End the connection (to reconnect at once) when responseText reaches this length. Default 1 MiB. */
  maxResponseChars?: number;
}

export const DEFAULT_MAX_RESPONSE_CHARS = 1024 * 1024;

const OPENED = 1;
const HEADERS_RECEIVED = 2;
const LOADING = 3;

/**
 * Whether the text received so far ends with a blank line, i.e. between two events: ending the
 * connection there loses nothing, and an event longer than the limit still arrives whole.
 */
function endsAtEventBoundary(text: string): boolean {
  const end = text.slice(-4);
  return end.endsWith('\n\n') || end.endsWith('\r\r') || end === '\r\n\r\n';
}

export function xhrTransport(options: XhrTransportOptions): Transport {
  const maxResponseChars = options.maxResponseChars ?? DEFAULT_MAX_RESPONSE_CHARS;

  return (request) =>
    new Promise<StreamConnection>((resolve, reject) => {
      if (typeof XMLHttpRequest !== 'function') {
        reject(new TypeError("XMLHttpRequest is not available here: use transport: 'fetch'."));
        return;
      }
      const xhr = new XMLHttpRequest();
      const responseHeaders: HeaderLookup = { get: (name) => xhr.getResponseHeader(name) };
      // connecting: no status yet; failing: an error status, its body still arriving;
      // streaming: handed out as a connection; done: ended, closed, or failed.
      let phase: 'connecting' | 'failing' | 'streaming' | 'done' = 'connecting';
      let offset = 0; // characters of responseText already handed out
      let unread = ''; // what was not read yet when the connection ended (responseText is gone after abort)
      let failure: GatehouseError | null = null;
      let recycled = false;
      let wake: (() => void) | null = null;

      const notifyReader = () => {
        const waiting = wake;
        wake = null;
        waiting?.();
      };
      const finish = () => {
        phase = 'done';
        request.signal.removeEventListener('abort', onAbort);
        notifyReader();
      };
      // React Native on iOS hands the XHR its request id in a later task; until then abort() cancels
      // nothing and also unhooks the XHR from the native events, so the request would run on (and
      // hold one of the account's stream slots) for good. A request sent but not answered yet is
      // therefore aborted at its first event instead.
      let abortOnFirstEvent = false;
      const abortedBeforeItStarted = (): boolean => {
        if (!abortOnFirstEvent) return false;
        abortOnFirstEvent = false;
        xhr.abort();
        return true;
      };
      // `phase` is `done` before abort() runs, so the events abort() fires synchronously are ignored.
      const abortRequest = () => {
        finish();
        if (xhr.readyState === OPENED) abortOnFirstEvent = true;
        else xhr.abort();
      };
      const keepUnread = () => {
        if (xhr.readyState >= LOADING) unread += xhr.responseText.slice(offset);
      };

      const onStatus = () => {
        if (phase !== 'connecting' || xhr.readyState < HEADERS_RECEIVED || xhr.status === 0) return;
        if (xhr.status < 200 || xhr.status >= 300) {
          phase = 'failing';
          return;
        }
        const wrongType = notAnEventStream(xhr.status, responseHeaders);
        if (wrongType) {
          abortRequest();
          reject(wrongType);
          return;
        }
        phase = 'streaming';
        resolve(connection);
      };

      const onProgress = () => {
        onStatus();
        if (phase !== 'streaming') return;
        if (xhr.readyState >= LOADING && xhr.responseText.length >= maxResponseChars && endsAtEventBoundary(xhr.responseText)) {
          keepUnread();
          recycled = true;
          abortRequest();
          return;
        }
        notifyReader();
      };

      const onLoad = () => {
        onStatus();
        if (phase === 'failing') {
          finish();
          reject(errorFromAnswer(xhr.status, responseHeaders, xhr.responseText, options.now()));
        } else if (phase === 'streaming') {
          keepUnread();
          finish();
        }
      };

      // error, timeout, or an abort we did not ask for. React Native replaces responseText with
      // the error message then, so nothing more is read from it: the server replays what was lost.
      const onFailure = (kind: string) => () => {
        if (phase === 'done') return;
        const error = connectionLost(new Error(`XMLHttpRequest ${kind}`));
        if (phase === 'streaming') {
          failure = error;
          finish();
        } else {
          finish();
          reject(error);
        }
      };

      function onAbort() {
        if (phase === 'done') return;
        const opened = phase === 'streaming';
        abortRequest();
        if (!opened) reject(clientError('aborted', 'The stream was closed.'));
      }

      /** The text not handed out yet: the growing responseText while streaming, the kept rest after. */
      const take = (): string => {
        if (phase === 'streaming') {
          if (xhr.readyState < LOADING) return '';
          const all = xhr.responseText;
          if (all.length <= offset) return '';
          const piece = all.slice(offset);
          offset = all.length;
          return piece;
        }
        const piece = unread;
        unread = '';
        return piece;
      };

      const connection: StreamConnection = {
        get recycled() {
          return recycled;
        },
        read() {
          return new Promise<string | null>((resolveRead, rejectRead) => {
            const attempt = () => {
              const text = take();
              if (text !== '') return resolveRead(text);
              if (failure) {
                const error = failure;
                failure = null;
                return rejectRead(error);
              }
              if (phase === 'done') return resolveRead(null);
              wake = attempt;
            };
            attempt();
          });
        },
        close() {
          unread = '';
          failure = null;
          if (phase === 'done') notifyReader();
          else abortRequest();
        },
      };

      // React Native only streams progress to JS when a progress or readystatechange handler is
      // set before send(); without one it delivers the body at the end, which never comes.
      xhr.onreadystatechange = () => abortedBeforeItStarted() || onStatus();
      xhr.onprogress = onProgress;
      xhr.onload = onLoad;
      xhr.onerror = onFailure('failed');
      xhr.ontimeout = onFailure('timed out');
      xhr.onabort = onFailure('was aborted');
      if (request.signal.aborted) {
        reject(clientError('aborted', 'The stream was closed.'));
        return;
      }
      request.signal.addEventListener('abort', onAbort, { once: true });
      try {
        xhr.open('GET', request.url, true);
        for (const [name, value] of Object.entries(request.headers)) xhr.setRequestHeader(name, value);
        xhr.send();
      } catch (cause) {
        finish();
        reject(connectionLost(cause));
      }
    });
}
