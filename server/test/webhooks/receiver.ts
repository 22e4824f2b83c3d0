import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A webhook receiver on 127.0.0.1 for tests. Its behaviour can change between requests:
 * answer a status (with `body`, default `ok`), hang (never answer), or be down (nothing
 * listening: connection refused).
 */
export type Behaviour = { status: number; delayMs?: number; body?: string | Buffer } | 'hang' | 'down';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** What the receiver answered; null when it hung. */
  answered: number | null;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Deliveries answered 2xx, by webhook-id. */
  acceptedIds(): string[];
  set(behaviour: Behaviour): Promise<void>;
  waitFor(predicate: (r: Received[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(initial: Behaviour = { status: 200 }, path = '/hooks'): Promise<Receiver> {
  let behaviour: Behaviour = initial;
  const received: Received[] = [];
  const hanging = new Set<ServerResponse>();
  let server: Server | null = null;
  let port = 0;

  const listen = () => new Promise<void>((resolve, reject) => {
    const s = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        const entry: Received = { headers: req.headers, body, answered: null };
        received.push(entry);
        if (behaviour === 'hang' || behaviour === 'down') return void hanging.add(res);
        const { status, delayMs = 0, body: answer = 'ok' } = behaviour;
        entry.answered = status;
        setTimeout(() => res.writeHead(status, { 'content-type': 'text/plain' }).end(answer), delayMs);
      });
    });
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => {
      port = (s.address() as AddressInfo).port;
      server = s;
      resolve();
    });
  });
  const shut = async () => {
    const s = server;
    server = null;
    if (!s) return;
    for (const res of hanging) res.destroy();
    hanging.clear();
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  };

  await listen();
  if (initial === 'down') await shut();

  return {
    get url() {
      return `http://127.0.0.1:${port}${path}`;
    },
    get port() {
      return port;
    },
    received,
    acceptedIds: () => received.filter((r) => r.answered !== null && r.answered < 300).map((r) => String(r.headers['webhook-id'])),
    async set(next) {
      behaviour = next;
      if (next === 'down') await shut();
      else if (!server) await listen();
    },
    async waitFor(predicate, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > until) throw new Error(`receiver: condition not met in ${timeoutMs} ms; got ${received.length} requests`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    close: shut,
  };
}
