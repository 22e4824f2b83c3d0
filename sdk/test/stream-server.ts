/**
 * A scriptable event-stream server on loopback for the live-stream tests: each connection to a
 * stream path gets the next handler of the script (the last one repeats), and every request is
 * recorded with its headers and a promise that settles when the server sees its socket close.
 * POST /v1/auth/refresh plays the refresh endpoint.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';

export interface StreamHit {
  /** 0-based among the stream requests. */
  index: number;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Milliseconds since the server started. */
  at: number;
  /** Settles when the server sees the client's socket close. */
  socketClosed: Promise<void>;
}

export type StreamHandler = (res: ServerResponse, hit: StreamHit, req: IncomingMessage) => void;

export interface StreamServer {
  base: string;
  hits: StreamHit[];
  refreshes: string[];
  script(...handlers: StreamHandler[]): void;
  onRefresh(answer: (refreshToken: string) => { status: number; body: unknown }): void;
  /** Resolves when the `count`-th stream request has arrived. */
  waitForHits(count: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startStreamServer(): Promise<StreamServer> {
  const started = Date.now();
  const hits: StreamHit[] = [];
  const refreshes: string[] = [];
  let handlers: StreamHandler[] = [];
  let refreshAnswer: (refreshToken: string) => { status: number; body: unknown } = () => ({ status: 500, body: {} });
  const waiters: (() => void)[] = [];

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'POST' && url.pathname === '/v1/auth/refresh') {
      let text = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (text += chunk));
      req.on('end', () => {
        const token = String((JSON.parse(text) as { refresh_token?: unknown }).refresh_token);
        refreshes.push(token);
        const { status, body } = refreshAnswer(token);
        const type = status < 300 ? 'application/json' : 'application/problem+json';
        res.writeHead(status, { 'content-type': type }).end(JSON.stringify(body));
      });
      return;
    }
    const socketClosed = new Promise<void>((resolve) => {
      if (req.socket.destroyed) resolve();
      else req.socket.once('close', () => resolve());
    });
    const hit: StreamHit = { index: hits.length, path: url.pathname, query: url.searchParams, headers: req.headers, at: Date.now() - started, socketClosed };
    hits.push(hit);
    waiters.splice(0).forEach((wake) => wake());
    const handler = handlers[Math.min(hit.index, handlers.length - 1)];
    if (!handler) return void res.writeHead(500).end('no script');
    handler(res, hit, req);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    base: `http://127.0.0.1:${port}`,
    hits,
    refreshes,
    script: (...next) => void (handlers = next),
    onRefresh: (answer) => void (refreshAnswer = answer),
    async waitForHits(count) {
      while (hits.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Starts an event stream answer: 200, text/event-stream, and a short `retry:` so tests stay fast. */
export function openEvents(res: ServerResponse, retryMs = 10): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.write(`retry: ${retryMs}\n\n`);
}

/** One event as the server writes it: `id:` is the sequence, `data:` the JSON envelope. */
export function event(sequence: number, type = 'message.delta', data: unknown = { content: `part ${sequence}` }): string {
  const envelope = { id: `evt_${String(sequence).padStart(4, '0')}`, type, created_at: '2026-11-25T10:00:00.000Z', data };
  return `id: ${sequence}\nevent: ${type}\ndata: ${JSON.stringify(envelope)}\n\n`;
}

export function events(from: number, to: number): string {
  let text = '';
  for (let sequence = from; sequence <= to; sequence++) text += event(sequence);
  return text;
}

export function closedBecause(reason: string): string {
  return `event: stream.closed\ndata: ${JSON.stringify({ reason })}\n\n`;
}

export function problem(res: ServerResponse, status: number, code: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/problem+json', 'x-request-id': 'req_stub', ...headers });
  res.end(JSON.stringify({ type: `https://errors.example/${code}`, title: code, status, code, detail: `stub says ${code}`, request_id: 'req_stub' }));
}

/** The Last-Event-ID the client sent, or null. */
export function lastEventIdOf(hit: StreamHit): string | null {
  const value = hit.headers['last-event-id'];
  return typeof value === 'string' ? value : null;
}
