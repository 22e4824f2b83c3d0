/**
 * React Native's own XMLHttpRequest, on the real network, under jest-expo.
 *
 * The jest preset leaves the global XMLHttpRequest undefined (InitializeCore, which installs it in
 * an app, is mocked) and mocks the native `Networking` module with bare jest.fn()s
 * (react-native/jest/mocks/NativeModules.js), so RN's XHR never reaches a socket. Node's fetch,
 * which the rest of the suite uses, is no stand-in for it: on a device fetch is whatwg-fetch over
 * this XHR and cannot stream a body, so the SDK reads Server-Sent Events through XHR progress
 * events, and that path has to be proven with RN's XHR JS itself.
 *
 * `installReactNativeXhr()` puts the unmodified class from
 * react-native/Libraries/Network/XMLHttpRequest.js on globalThis and swaps the methods of the
 * native module it ends up calling for a Node http/https implementation that plays the iOS native
 * side (RCTNetworking.mm, RCTNetworkTask.mm, RCTHTTPRequestHandler.mm) of react-native 0.81:
 *
 *   XMLHttpRequest.send → RCTNetworking.ios.js sendRequest → NativeNetworkingIOS.sendRequest(query, callback)
 *     ← callback(requestId), then device events on RCTDeviceEventEmitter, each with ONE array argument
 *       (the XHR listens with `args => this.__didX(...args)`):
 *       didReceiveNetworkResponse        [id, status, headers, responseURL]
 *       didReceiveNetworkIncrementalData [id, textChunk, bytesDecodedSoFar, contentLength|-1]  (incremental, text)
 *       didReceiveNetworkDataProgress    [id, bytesSoFar, contentLength|-1]                    (incremental, base64)
 *       didReceiveNetworkData            [id, wholeBody]                                       (otherwise, at the end)
 *       didSendNetworkData               [id, bytesSent, bodyLength]                           (upload progress)
 *       didCompleteNetworkResponse       [id, errorMessage|null, timedOut]
 *   XMLHttpRequest.abort → NativeNetworkingIOS.abortRequest(id): the task is cancelled, no more events.
 *
 * The seam is the module object itself: NativeNetworkingIOS.js is
 * `TurboModuleRegistry.getEnforcing('Networking')`, i.e. the very `NativeModules.Networking` mock
 * object, so replacing its methods works whatever was required first, and uninstall() puts the
 * jest.fn()s back. The XHR class, RCTNetworking and RCTDeviceEventEmitter are taken from this test
 * file's module registry, so they are the instances the code under test sees.
 *
 * Opt-in: only a test file that calls installReactNativeXhr() gets it; the others keep Node's fetch
 * (which this does not touch) and no global XMLHttpRequest.
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
// Node's own setImmediate, not the test global: jest's fake timers replace the global one, and a
// test using them must still get its network events.
import { setImmediate as realSetImmediate } from 'node:timers';

/** The query RCTNetworking.ios.js hands the native module (NativeNetworkingIOS.js's Spec). */
interface NetworkingQuery {
  method: string;
  url: string;
  /** convertRequestBody(body) plus trackingName: {string} | {base64} | {formData} | {blob} | {uri}. */
  data: { string?: string; base64?: string; formData?: unknown; blob?: unknown; uri?: unknown; trackingName?: string } | null | undefined;
  /** Already lowercased by XMLHttpRequest.setRequestHeader. */
  headers: Record<string, string>;
  responseType: 'text' | 'base64' | 'blob';
  incrementalUpdates: boolean;
  /** Milliseconds; 0 means none. */
  timeout: number;
  withCredentials: boolean;
}

interface NetworkingModule {
  sendRequest(query: NetworkingQuery, callback: (requestId: number) => void): void;
  abortRequest(requestId: number): void;
  clearCookies(callback: (result: boolean) => void): void;
}

/** The part of RN's XMLHttpRequest the tests use (the test tsconfig has no DOM lib). */
export interface ReactNativeXMLHttpRequest {
  readonly readyState: number;
  readonly status: number;
  readonly responseText: string;
  readonly response: unknown;
  readonly responseURL?: string | null;
  responseType: '' | 'text' | 'json' | 'arraybuffer' | 'blob';
  timeout: number;
  withCredentials: boolean;
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  send(body?: string | ArrayBuffer | null): void;
  abort(): void;
  getResponseHeader(name: string): string | null;
  getAllResponseHeaders(): string | null;
  addEventListener(type: string, listener: (event: ReactNativeProgressEvent) => void): void;
  onreadystatechange: ((event: ReactNativeProgressEvent) => void) | null;
  onprogress: ((event: ReactNativeProgressEvent) => void) | null;
  onload: ((event: ReactNativeProgressEvent) => void) | null;
  onerror: ((event: ReactNativeProgressEvent) => void) | null;
  ontimeout: ((event: ReactNativeProgressEvent) => void) | null;
  onabort: ((event: ReactNativeProgressEvent) => void) | null;
  onloadend: ((event: ReactNativeProgressEvent) => void) | null;
  readonly upload: { onprogress: ((event: ReactNativeProgressEvent) => void) | null };
}

export interface ReactNativeProgressEvent {
  readonly type: string;
  readonly loaded?: number;
  readonly total?: number;
  readonly lengthComputable?: boolean;
}

export interface ReactNativeXhr {
  /** RN's class, also at globalThis.XMLHttpRequest while installed. */
  XMLHttpRequest: new () => ReactNativeXMLHttpRequest;
  /** Every device event delivered to JS, in order (clear it with `events.length = 0`). */
  events: Array<{ name: string; args: unknown[] }>;
  /** Requests the "native" side still has open. */
  inFlight(): number;
  /** Closes every open request (without events, as a cancelled task), restores the global and the mock. */
  uninstall(): void;
}

// CFNetwork's own messages (NSError.localizedDescription) for the failures Node can tell apart, so
// `xhr.responseText` after an error reads as on an iPhone.
const TIMED_OUT = 'The request timed out.';
const CONNECTION_LOST = 'The network connection was lost.';
const ERROR_MESSAGES: Record<string, string> = {
  ECONNREFUSED: 'Could not connect to the server.',
  ENOTFOUND: 'A server with the specified hostname could not be found.',
  EAI_AGAIN: 'A server with the specified hostname could not be found.',
  ECONNRESET: CONNECTION_LOST,
  EPIPE: CONNECTION_LOST,
};
// NSURLSession follows redirects itself (up to 16) and reports only the final response.
const MAX_REDIRECTS = 16;
// What NSURLSession's default configuration sends when the request does not say otherwise. No
// Accept-Encoding: CFNetwork would ask for gzip/br and inflate transparently; Node would hand the
// compressed bytes through, so leave compression off rather than half-emulate it.
const CFNETWORK_DEFAULT_HEADERS: Record<string, string> = {
  accept: '*/*',
  'accept-language': 'en-US,en;q=0.9',
  'user-agent': 'GatehouseRNTest/1 CFNetwork/3826.500.131 Darwin/24.5.0',
};

let installed: ReactNativeXhr | null = null;
// iOS counts from 0 (RCTNetworkTask.mm `currentRequestId`), and XMLHttpRequest.abort() skips the
// native call when `this._requestId` is falsy: an app's very first network task cannot be aborted.
// Start at 1 so no test depends on running first.
let nextRequestId = 1;

/** Installs RN's XMLHttpRequest with a Node-backed iOS networking module; see the file comment. */
export function installReactNativeXhr(): ReactNativeXhr {
  if (installed) throw new Error('installReactNativeXhr(): already installed; uninstall() the previous one first');
  /* eslint-disable @typescript-eslint/no-require-imports */
  const Platform = require('react-native/Libraries/Utilities/Platform').default as { OS: string };
  if (Platform.OS !== 'ios') {
    // RCTNetworking.android.js calls a different native signature (its own request ids, header pairs).
    throw new Error(`installReactNativeXhr() emulates the iOS networking module; this run resolves Platform.OS=${Platform.OS}`);
  }
  const XMLHttpRequest = require('react-native/Libraries/Network/XMLHttpRequest').default as new () => ReactNativeXMLHttpRequest;
  const Networking = require('react-native/Libraries/Network/NativeNetworkingIOS').default as NetworkingModule;
  const RCTDeviceEventEmitter = require('react-native/Libraries/EventEmitter/RCTDeviceEventEmitter').default as {
    emit(name: string, args: unknown[]): void;
  };
  /* eslint-enable @typescript-eslint/no-require-imports */

  const httpAgent = new HttpAgent({ keepAlive: true });
  const httpsAgent = new HttpsAgent({ keepAlive: true });
  const tasks = new Map<number, Task>();
  const events: ReactNativeXhr['events'] = [];
  let active = true;

  interface Task {
    id: number;
    /** Completed or cancelled: the Node side reports nothing more. */
    finished: boolean;
    /** Aborted from JS: events already queued are dropped too. */
    cancelled: boolean;
    timedOut: boolean;
    req?: ClientRequest;
    res?: IncomingMessage;
  }

  // Native module events and callbacks reach JS later, as their own task, never inside the call
  // that caused them; one FIFO queue keeps them in order (the id callback first). It also keeps a
  // throwing XHR handler (a failed expect in onprogress) out of Node's http parser: the error
  // surfaces as an uncaught exception of its own, and jest fails the test with it.
  const later = (task: Task, deliver: () => void) =>
    realSetImmediate(() => {
      // A cancelled task says nothing more (RCTNetworkTask -cancel invalidates its blocks).
      if (active && !task.cancelled) deliver();
    });
  const emit = (task: Task, name: string, args: unknown[]) =>
    later(task, () => {
      events.push({ name, args });
      RCTDeviceEventEmitter.emit(name, args);
    });

  function finish(task: Task, error: string | null, body: Buffer | null, query: NetworkingQuery, charset: string) {
    if (task.finished) return;
    task.finished = true;
    tasks.delete(task.id);
    // RCTNetworking.mm completionBlock: unless text went out incrementally, the body goes now
    // (nothing when empty), then the completion with the error's description and the timeout flag.
    if (!(query.incrementalUpdates && query.responseType === 'text') && body && body.length > 0) {
      emit(task, 'didReceiveNetworkData', [task.id, query.responseType === 'base64' ? body.toString('base64') : decode(body, charset)]);
    }
    emit(task, 'didCompleteNetworkResponse', [task.id, error, task.timedOut]);
  }

  function sendRequest(query: NetworkingQuery, callback: (requestId: number) => void): void {
    if (query.responseType !== 'text' && query.responseType !== 'base64') {
      // 'blob' needs the native BlobModule's networking handler, which the jest mock does not have.
      throw new Error(`installReactNativeXhr(): native responseType '${query.responseType}' is not emulated; use '', 'text', 'json' or 'arraybuffer'`);
    }
    const data = query.data ?? {};
    if (data.formData !== undefined || data.blob !== undefined || data.uri !== undefined) {
      throw new Error('installReactNativeXhr(): only string and ArrayBuffer request bodies are emulated');
    }
    let url: URL;
    try {
      url = new URL(query.url);
    } catch {
      url = new URL('invalid:');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      // On iOS no handler takes it (RCTLogError) and JS never hears back; fail loudly instead.
      throw new Error(`installReactNativeXhr(): cannot load ${query.url}`);
    }
    const body = data.string !== undefined ? Buffer.from(data.string, 'utf8') : data.base64 !== undefined ? Buffer.from(data.base64, 'base64') : undefined;
    const task: Task = { id: nextRequestId++, finished: false, cancelled: false, timedOut: false };
    tasks.set(task.id, task);
    // RCTNetworking.mm: responseSender(@[task.requestID]) then [task start]; JS gets the id
    // asynchronously, so an abort() in the same tick as send() has no id and does not reach us.
    later(task, () => callback(task.id));

    const callerHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(query.headers ?? {})) if (value != null) callerHeaders[name.toLowerCase()] = String(value);
    start(task, query, url, query.method.toUpperCase() || 'GET', { ...CFNETWORK_DEFAULT_HEADERS, ...callerHeaders }, body, 0);
  }

  function start(task: Task, query: NetworkingQuery, url: URL, method: string, headers: Record<string, string>, body: Buffer | undefined, redirects: number) {
    const sent = { ...headers };
    if (body) {
      // CFNetwork labels a body nobody labelled as a form post.
      sent['content-type'] ??= 'application/x-www-form-urlencoded';
      sent['content-length'] = String(body.length);
    }
    const https = url.protocol === 'https:';
    let req: ClientRequest;
    try {
      req = (https ? httpsRequest : httpRequest)(url, { method, headers: sent, agent: https ? httpsAgent : httpAgent });
    } catch (error) {
      // e.g. a header value Node refuses; NSURLSession would fail the task.
      return finish(task, (error as Error).message, null, query, 'utf-8');
    }
    task.req = req;
    const fail = (error: NodeJS.ErrnoException) =>
      finish(task, task.timedOut ? TIMED_OUT : (ERROR_MESSAGES[error.code ?? ''] ?? error.message), null, query, 'utf-8');
    req.on('error', fail);
    // NSURLRequest.timeoutInterval (XMLHttpRequest.timeout / 1000) is an idle timeout: the longest
    // wait for the next byte, not for the whole response; a socket timeout is the same thing.
    if (query.timeout > 0) {
      req.setTimeout(query.timeout, () => {
        task.timedOut = true;
        req.destroy(Object.assign(new Error(TIMED_OUT), { code: 'ETIMEDOUT' }));
      });
    }
    req.on('response', (res) => {
      if (task.finished) return void res.destroy();
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if ([301, 302, 303, 307, 308].includes(status) && location) {
        res.resume();
        if (redirects >= MAX_REDIRECTS) return finish(task, 'too many HTTP redirects', null, query, 'utf-8');
        // As fetch and NSURLSession do: 303 (and POST after 301/302) becomes a body-less GET.
        const toGet = (status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST');
        // RCTHTTPRequestHandler's willPerformHTTPRedirection replaces the new request's header
        // fields with the cookie headers alone: the caller's headers (Authorization included) do
        // not follow a redirect on iOS.
        return start(task, query, new URL(location, url), toGet ? 'GET' : method, { ...CFNETWORK_DEFAULT_HEADERS }, toGet ? undefined : body, redirects + 1);
      }
      task.res = res;
      const contentType = res.headers['content-type'] ?? '';
      const charset = /;\s*charset="?([^";]+)"?/i.exec(contentType)?.[1]?.trim().toLowerCase() ?? 'utf-8';
      const lengthHeader = res.headers['content-length'];
      // NSURLResponse.expectedContentLength: -1 when unknown (chunked, event streams).
      const total = lengthHeader !== undefined && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : -1;
      emit(task, 'didReceiveNetworkResponse', [task.id, status, responseHeaders(res.rawHeaders), url.href]);

      const chunks: Buffer[] = [];
      let received = 0;
      let carry: Buffer = Buffer.alloc(0);
      res.on('data', (chunk: Buffer) => {
        if (task.finished) return;
        received += chunk.length;
        if (query.incrementalUpdates && query.responseType === 'text') {
          // RCTNetworking.mm incrementalDataBlock: decode what forms whole characters, carry the
          // bytes of a split UTF-8 sequence into the next chunk, and count only decoded bytes.
          const bytes = Buffer.concat([carry, chunk]);
          const whole = isUtf8(charset) ? completeUtf8Length(bytes) : bytes.length;
          carry = bytes.subarray(whole);
          emit(task, 'didReceiveNetworkIncrementalData', [task.id, decode(bytes.subarray(0, whole), charset), received - carry.length, total]);
        } else {
          chunks.push(chunk);
          if (query.incrementalUpdates) emit(task, 'didReceiveNetworkDataProgress', [task.id, received, total]);
        }
      });
      res.on('error', () => {}); // reported through 'close' below
      res.on('close', () => {
        if (res.complete) finish(task, null, Buffer.concat(chunks), query, charset);
        else finish(task, task.timedOut ? TIMED_OUT : CONNECTION_LOST, null, query, charset);
      });
    });
    if (body) {
      req.end(body, () => {
        // NSURLSession didSendBodyData → didSendNetworkData [id, sent, HTTPBody.length].
        if (!task.finished) emit(task, 'didSendNetworkData', [task.id, body.length, body.length]);
      });
    } else {
      req.end();
    }
  }

  function abortRequest(requestId: number): void {
    const task = tasks.get(requestId) as (Task) | undefined;
    if (!task) return;
    // RCTNetworkTask -cancel: cancel the URLSession task and invalidate every block, so no event,
    // not even didCompleteNetworkResponse, follows (the XHR has already reset itself).
    task.cancelled = true;
    task.finished = true;
    tasks.delete(requestId);
    task.res?.destroy();
    task.req?.destroy();
  }

  const original = { sendRequest: Networking.sendRequest, abortRequest: Networking.abortRequest, clearCookies: Networking.clearCookies };
  const hadGlobal = Object.prototype.hasOwnProperty.call(globalThis, 'XMLHttpRequest');
  const previousGlobal = (globalThis as { XMLHttpRequest?: unknown }).XMLHttpRequest;
  Networking.sendRequest = sendRequest;
  Networking.abortRequest = abortRequest;
  // No cookie store is emulated (withCredentials is ignored): nothing to clear.
  Networking.clearCookies = (callback) => realSetImmediate(() => callback(false));
  (globalThis as { XMLHttpRequest?: unknown }).XMLHttpRequest = XMLHttpRequest;

  const handle: ReactNativeXhr = {
    XMLHttpRequest,
    events,
    inFlight: () => tasks.size,
    uninstall() {
      if (installed !== handle) return;
      for (const id of [...tasks.keys()]) abortRequest(id);
      active = false;
      Object.assign(Networking, original);
      if (hadGlobal) (globalThis as { XMLHttpRequest?: unknown }).XMLHttpRequest = previousGlobal;
      else delete (globalThis as { XMLHttpRequest?: unknown }).XMLHttpRequest;
      httpAgent.destroy();
      httpsAgent.destroy();
      installed = null;
    },
  };
  installed = handle;
  return handle;
}

/**
 * NSHTTPURLResponse.allHeaderFields: one entry per field, repeated fields joined with ", ", the
 * name spelled as the first occurrence (the XHR looks names up case-insensitively).
 */
function responseHeaders(raw: string[]): Record<string, string> {
  const byLower = new Map<string, { name: string; value: string }>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    const value = raw[i + 1]!;
    const entry = byLower.get(name.toLowerCase());
    if (entry) entry.value += `, ${value}`;
    else byLower.set(name.toLowerCase(), { name, value });
  }
  return Object.fromEntries([...byLower.values()].map(({ name, value }) => [name, value]));
}

function isUtf8(charset: string): boolean {
  return charset === 'utf-8' || charset === 'utf8';
}

/** Bytes up to the end of the last complete UTF-8 sequence (a split one at the end is left out). */
function completeUtf8Length(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(4, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: keep looking for the lead
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

/** The response charset as iOS would honour it; the ones Node knows, UTF-8 otherwise. */
function decode(bytes: Buffer, charset: string): string {
  if (charset === 'iso-8859-1' || charset === 'latin1' || charset === 'us-ascii' || charset === 'ascii') return bytes.toString('latin1');
  if (charset === 'utf-16le') return bytes.toString('utf16le');
  return bytes.toString('utf8');
}
