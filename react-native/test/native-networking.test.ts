/**
 * React Native's own XMLHttpRequest (react-native 0.81's Libraries/Network JS, unmodified) on the
 * real network through test/native-networking.ts, which plays the iOS native networking module.
 * This is the path the SDK reads Server-Sent Events through on a device (RN's fetch cannot stream
 * a body): a text/event-stream answer arrives chunk by chunk as progress events while the response
 * is still open, and abort() closes the connection. A small Node server in this file writes the
 * streams; the live Gatehouse server (global-setup.mjs) answers ordinary JSON requests.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { installReactNativeXhr, type ReactNativeXhr, type ReactNativeXMLHttpRequest } from './native-networking.js';
import { PASSWORD, SERVER, uniqueEmail } from './helpers.js';

interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A stream the server is writing: what it wrote so far, and when the client's socket closed. */
interface Stream {
  res: ServerResponse;
  written: string[];
  closed: Promise<void>;
}

const CHUNKS = ['id: 1\nevent: message\ndata: {"n":1}\n\n', 'id: 2\nevent: message\ndata: {"n":2}\n\n', ': keep-alive\n\nid: 3\nevent: message\ndata: {"n":3}\n\n'];

let server: Server;
let base: string;
const seen: Seen[] = [];
const streams: Stream[] = [];
const sockets = new Set<Socket>();
let rn: ReactNativeXhr;

function wait(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = 5_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await wait(5);
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      seen.push({ method: req.method ?? '', path, headers: req.headers, body });
      if (path === '/events') {
        // An SSE answer: headers at once, then one chunk every 150 ms, and never an end.
        res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', 'X-Stream': 'test' });
        res.flushHeaders();
        const stream: Stream = { res, written: [], closed: new Promise((resolve) => req.socket.once('close', () => resolve())) };
        streams.push(stream);
        CHUNKS.forEach((chunk, i) =>
          setTimeout(() => {
            if (res.destroyed) return;
            stream.written.push(chunk);
            res.write(chunk);
          }, 50 + 150 * i),
        );
      } else if (path === '/json') {
        const json = JSON.stringify({ hello: 'world', n: 42 });
        res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(json)), 'Set-Cookie': 'a=1' });
        res.end(json);
      } else if (path === '/echo') {
        res.writeHead(201, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ method: req.method, body }));
      } else if (path === '/split-utf8') {
        // "€" (E2 82 AC) split across two writes: the client must not see half a character.
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
        const euro = Buffer.from('a€b', 'utf8');
        res.write(euro.subarray(0, 2));
        setTimeout(() => res.end(euro.subarray(2)), 100);
      } else if (path === '/redirect') {
        res.writeHead(302, { Location: '/json' });
        res.end();
      } else if (path === '/hang') {
        const stream: Stream = { res, written: [], closed: new Promise((resolve) => req.socket.once('close', () => resolve())) };
        streams.push(stream);
      } else {
        res.writeHead(404);
        res.end();
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  rn = installReactNativeXhr();
});

afterAll(async () => {
  rn.uninstall();
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function request(method: string, url: string, headers: Record<string, string> = {}): ReactNativeXMLHttpRequest {
  const xhr = new rn.XMLHttpRequest();
  xhr.open(method, url);
  for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
  return xhr;
}

/** Which of load/error/timeout/abort ended it. Listeners, not on* handlers: those would ask for incremental updates. */
function outcome(xhr: ReactNativeXMLHttpRequest): Promise<string> {
  return new Promise((resolve) => {
    for (const type of ['load', 'error', 'timeout', 'abort']) xhr.addEventListener(type, () => resolve(type));
  });
}

function eventsOf(id: number): string[] {
  return rn.events.filter((e) => e.args[0] === id).map((e) => e.name);
}

function requestIdOf(xhr: ReactNativeXMLHttpRequest): number {
  return (xhr as unknown as { _requestId: number })._requestId;
}

it('is React Native’s XMLHttpRequest on the global, not a Node polyfill', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  expect((globalThis as { XMLHttpRequest?: unknown }).XMLHttpRequest).toBe(require('react-native/Libraries/Network/XMLHttpRequest').default);
  expect(rn.XMLHttpRequest).toBe((globalThis as { XMLHttpRequest?: unknown }).XMLHttpRequest);
});

it('streams a text/event-stream answer chunk by chunk while the response is open, and abort() closes the connection', async () => {
  const xhr = request('GET', `${base}/events`, { Accept: 'text/event-stream', Authorization: 'Bearer t0k3n', 'Last-Event-ID': '0' });
  const atHeaders: Array<{ status: number; contentType: string | null; custom: string | null; text: string }> = [];
  const progress: Array<{ text: string; loaded?: number; total?: number; lengthComputable?: boolean; readyState: number; serverWrote: number; serverEnded: boolean }> = [];
  xhr.onreadystatechange = () => {
    if (xhr.readyState === 2) {
      atHeaders.push({ status: xhr.status, contentType: xhr.getResponseHeader('content-type'), custom: xhr.getResponseHeader('X-STREAM'), text: xhr.responseText });
    }
  };
  xhr.onprogress = (event) => {
    const stream = streams.at(-1)!;
    progress.push({
      text: xhr.responseText,
      loaded: event.loaded,
      total: event.total,
      lengthComputable: event.lengthComputable,
      readyState: xhr.readyState,
      serverWrote: stream.written.length,
      serverEnded: stream.res.writableEnded,
    });
  };
  const ended = outcome(xhr);
  xhr.send();

  // The request's headers reached the server.
  const request_ = await until('the request at the server', () => seen.find((s) => s.path === '/events'));
  expect(request_.method).toBe('GET');
  expect(request_.headers.accept).toBe('text/event-stream');
  expect(request_.headers.authorization).toBe('Bearer t0k3n');
  expect(request_.headers['last-event-id']).toBe('0');

  // Status and headers at HEADERS_RECEIVED, before any body.
  await until('readyState 2', () => atHeaders.length > 0);
  expect(atHeaders[0]).toEqual({ status: 200, contentType: 'text/event-stream', custom: 'test', text: '' });

  // The first chunk arrives as a progress event on its own: the server has written one chunk and
  // has not ended (it never does), the XHR is LOADING.
  await until('the first progress event', () => progress.length > 0);
  expect(progress[0]).toEqual({
    text: CHUNKS[0],
    loaded: Buffer.byteLength(CHUNKS[0]!),
    total: -1,
    lengthComputable: false,
    readyState: 3,
    serverWrote: 1,
    serverEnded: false,
  });

  // The others follow one by one, each adding its chunk to responseText.
  await until('every chunk', () => progress.at(-1)?.text === CHUNKS.join(''));
  expect(progress.length).toBeGreaterThanOrEqual(CHUNKS.length);
  expect(progress.map((p) => p.text)).toEqual(CHUNKS.map((_, i) => CHUNKS.slice(0, i + 1).join('')));
  const frames = xhr.responseText.split('\n\n').filter((frame) => frame.includes('data:'));
  expect(frames.map((frame) => JSON.parse(/^data: (.*)$/m.exec(frame)![1]!) as { n: number })).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  expect(xhr.readyState).toBe(3);
  const id = requestIdOf(xhr);
  expect(new Set(eventsOf(id))).toEqual(new Set(['didReceiveNetworkResponse', 'didReceiveNetworkIncrementalData']));
  expect(rn.inFlight()).toBe(1);

  // abort(): the server sees the socket close; the XHR reports abort and the task says nothing more.
  xhr.abort();
  await expect(ended).resolves.toBe('abort');
  await streams.at(-1)!.closed;
  expect(rn.inFlight()).toBe(0);
  await wait(50);
  expect(eventsOf(id)).not.toContain('didCompleteNetworkResponse');
});

it('answers an ordinary JSON GET in one piece when nobody watches progress', async () => {
  const xhr = request('GET', `${base}/json`);
  const ended = outcome(xhr);
  xhr.send();
  await expect(ended).resolves.toBe('load');
  expect(xhr.status).toBe(200);
  expect(xhr.readyState).toBe(4);
  expect(JSON.parse(xhr.responseText)).toEqual({ hello: 'world', n: 42 });
  expect(xhr.getResponseHeader('Content-Type')).toBe('application/json; charset=utf-8');
  expect(xhr.getAllResponseHeaders()).toContain('set-cookie: a=1\r\n');
  expect(xhr.responseURL).toBe(`${base}/json`);
  // No incremental updates were asked for: the body came as one didReceiveNetworkData.
  const id = rn.events.find((e) => e.name === 'didReceiveNetworkData' && e.args[1] === xhr.responseText)!.args[0] as number;
  expect(eventsOf(id)).toEqual(['didReceiveNetworkResponse', 'didReceiveNetworkData', 'didCompleteNetworkResponse']);

  const typed = request('GET', `${base}/json`);
  typed.responseType = 'json';
  const typedEnded = outcome(typed);
  typed.send();
  await expect(typedEnded).resolves.toBe('load');
  expect(typed.response).toEqual({ hello: 'world', n: 42 });
});

it('hands an arraybuffer response over whole, with byte progress on the way', async () => {
  const xhr = request('GET', `${base}/json`);
  xhr.responseType = 'arraybuffer';
  const progress: Array<{ loaded?: number; total?: number }> = [];
  xhr.onprogress = (event) => progress.push({ loaded: event.loaded, total: event.total });
  const ended = outcome(xhr);
  xhr.send();
  await expect(ended).resolves.toBe('load');
  const bytes = Buffer.from(xhr.response as ArrayBuffer);
  expect(JSON.parse(bytes.toString('utf8'))).toEqual({ hello: 'world', n: 42 });
  // Not text, so no incremental data: didReceiveNetworkDataProgress, then the body (base64) at the end.
  expect(progress).toEqual([{ loaded: bytes.length, total: bytes.length }]);
});

it('talks to the live Gatehouse server: a GET, a JSON POST, and a bearer token', async () => {
  const health = request('GET', `${SERVER}/healthz`);
  const healthEnded = outcome(health);
  health.send();
  await expect(healthEnded).resolves.toBe('load');
  expect(health.status).toBe(200);
  expect(JSON.parse(health.responseText)).toEqual({ status: 'ok' });

  const email = uniqueEmail();
  const register = request('POST', `${SERVER}/v1/auth/register`, { 'Content-Type': 'application/json' });
  const registered = outcome(register);
  register.send(JSON.stringify({ email, password: PASSWORD, name: 'Ada Xhr' }));
  await expect(registered).resolves.toBe('load');
  expect(register.status).toBe(201);
  expect(register.getResponseHeader('location')).toBe('/v1/users/me');
  expect(JSON.parse(register.responseText)).toMatchObject({ email, name: 'Ada Xhr' });

  const login = request('POST', `${SERVER}/v1/auth/login`, { 'Content-Type': 'application/json' });
  const loggedIn = outcome(login);
  login.send(JSON.stringify({ username: email, password: PASSWORD }));
  await expect(loggedIn).resolves.toBe('load');
  expect(login.status).toBe(200);
  const { access_token } = JSON.parse(login.responseText) as { access_token: string };

  const me = request('GET', `${SERVER}/v1/users/me`, { Authorization: `Bearer ${access_token}` });
  const meEnded = outcome(me);
  me.send();
  await expect(meEnded).resolves.toBe('load');
  expect(me.status).toBe(200);
  expect(JSON.parse(me.responseText)).toMatchObject({ email });
});

it('sends a string body as given, labelled as CFNetwork labels an unlabelled one, with upload progress', async () => {
  const xhr = request('POST', `${base}/echo`);
  const uploads: Array<{ loaded?: number; total?: number }> = [];
  xhr.upload.onprogress = (event) => uploads.push({ loaded: event.loaded, total: event.total });
  const ended = outcome(xhr);
  xhr.send('a=1&b=é');
  await expect(ended).resolves.toBe('load');
  expect(xhr.status).toBe(201);
  expect(JSON.parse(xhr.responseText)).toEqual({ method: 'POST', body: 'a=1&b=é' });
  const atServer = seen.filter((s) => s.path === '/echo').at(-1)!;
  expect(atServer.headers['content-type']).toBe('application/x-www-form-urlencoded');
  expect(atServer.headers['content-length']).toBe(String(Buffer.byteLength('a=1&b=é')));
  expect(uploads).toEqual([{ loaded: 8, total: 8 }]);
});

it('never shows half a UTF-8 character when a chunk splits one', async () => {
  const xhr = request('GET', `${base}/split-utf8`);
  const progress: Array<{ text: string; loaded?: number }> = [];
  xhr.onprogress = (event) => progress.push({ text: xhr.responseText, loaded: event.loaded });
  const ended = outcome(xhr);
  xhr.send();
  await expect(ended).resolves.toBe('load');
  expect(progress).toEqual([
    { text: 'a', loaded: 1 },
    { text: 'a€b', loaded: 5 },
  ]);
});

it('follows a redirect as NSURLSession does, without the caller’s headers', async () => {
  const before = seen.length;
  const xhr = request('GET', `${base}/redirect`, { Authorization: 'Bearer secret' });
  const ended = outcome(xhr);
  xhr.send();
  await expect(ended).resolves.toBe('load');
  expect(xhr.status).toBe(200);
  expect(xhr.responseURL).toBe(`${base}/json`);
  const [first, second] = seen.slice(before);
  expect(first).toMatchObject({ path: '/redirect', headers: { authorization: 'Bearer secret' } });
  expect(second!.path).toBe('/json');
  expect(second!.headers.authorization).toBeUndefined();
});

it('times out when nothing arrives for xhr.timeout ms, and closes the connection', async () => {
  const xhr = request('GET', `${base}/hang`);
  xhr.timeout = 200;
  const ended = outcome(xhr);
  xhr.send();
  await expect(ended).resolves.toBe('timeout');
  expect(xhr.status).toBe(0);
  expect(xhr.responseText).toBe('The request timed out.');
  await streams.at(-1)!.closed;
});

it('reports a refused connection as an error, in CFNetwork’s words', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const xhr = request('GET', `http://127.0.0.1:${port}/`);
  const ended = outcome(xhr);
  xhr.send();
  await expect(ended).resolves.toBe('error');
  expect(xhr.status).toBe(0);
  expect(xhr.responseText).toBe('Could not connect to the server.');
});

it('as on a device, abort() in the same tick as send() never reaches the native side (the request id comes later)', async () => {
  const before = streams.length;
  const xhr = request('GET', `${base}/events`);
  const ended = outcome(xhr);
  xhr.send();
  xhr.abort();
  await expect(ended).resolves.toBe('abort');
  // The request went out anyway and stays open: the XHR had no id to cancel yet.
  const stream = await until('the stream at the server', () => streams[before]);
  await wait(100);
  expect(rn.inFlight()).toBe(1);
  expect(stream.res.destroyed).toBe(false);
  stream.res.end();
  await until('the task to finish', () => rn.inFlight() === 0);
});

it('uninstall() puts back the jest mock and the missing global', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Networking = require('react-native/Libraries/Network/NativeNetworkingIOS').default as { sendRequest: unknown };
  expect(jest.isMockFunction(Networking.sendRequest)).toBe(false);
  rn.uninstall();
  expect(jest.isMockFunction(Networking.sendRequest)).toBe(true);
  expect('XMLHttpRequest' in globalThis).toBe(false);
  rn = installReactNativeXhr();
  expect(jest.isMockFunction(Networking.sendRequest)).toBe(false);
});
