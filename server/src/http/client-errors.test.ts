import { Agent, get } from 'node:http';
import { connect } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientErrorHandler } from './client-errors.js';

/** Sends raw bytes and returns everything the server wrote before closing the connection. */
function exchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.on('error', () => {}); // the server closes hard after answering
    socket.on('close', () => resolve(received));
    setTimeout(() => reject(new Error(`no close; got ${received}`)), 5_000).unref();
  });
}

function parse(raw: string): { status: number; headers: string; body: Record<string, unknown> } {
  const [head = '', json = ''] = raw.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head.toLowerCase(), body: JSON.parse(json) };
}

/** One GET over a keep-alive connection of the shared agent (real sockets, reused between calls). */
const agent = new Agent({ keepAlive: true, maxSockets: 2 });
function keepAliveGet(): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = get({ host: '127.0.0.1', port: currentPort, path: '/', agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
}
let currentPort = 0;

describe('clientErrorHandler', () => {
  let app: FastifyInstance;
  let port: number;
  beforeAll(async () => {
    app = Fastify({ clientErrorHandler: clientErrorHandler('https://gatehouse.example'), requestTimeout: 300, http: { headersTimeout: 300, connectionsCheckingInterval: 100 } });
    app.get('/', async () => 'ok');
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
    currentPort = port;
  });
  afterAll(async () => {
    agent.destroy();
    await app.close();
  });

  it('answers headers over 16 KiB with 431 header_too_large as problem+json', async () => {
    const res = parse(await exchange(port, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(res.status).toBe(431);
    expect(res.headers).toContain('content-type: application/problem+json');
    expect(res.body).toMatchObject({ status: 431, code: 'header_too_large', type: 'https://gatehouse.example/docs/errors#header_too_large' });
    expect(res.body.request_id).toMatch(/^req_/);
  });

  it('answers bytes that are not HTTP with 400 invalid_request', async () => {
    const res = parse(await exchange(port, 'NOT HTTP AT ALL\r\n\r\n'));
    expect(res).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
  });

  it('closes a connection that sent nothing by the deadline without a word: no 408 for a request it never saw', async () => {
    expect(await exchange(port, '')).toBe('');
  });

  it('under load, pooled connections left unused past the deadline get no 408, and the busy ones go on answering', async () => {
    const idle = Array.from({ length: 20 }, () => exchange(port, ''));
    const statuses: number[] = [];
    const busy = async () => {
      const until = Date.now() + 800; // past the 300 ms deadline and two checks
      while (Date.now() < until) statuses.push((await app.inject({ method: 'GET', url: '/' })).statusCode, await keepAliveGet());
    };
    await Promise.all([busy(), busy()]);
    expect(await Promise.all(idle)).toEqual(Array(20).fill(''));
    expect(statuses.length).toBeGreaterThan(10);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
  });

  it('answers a request too slow to arrive with 408 request_timeout', async () => {
    const res = parse(await exchange(port, 'GET / HTTP/1.1\r\nHost: x\r\n'));
    expect(res).toMatchObject({ status: 408, body: { code: 'request_timeout', status: 408 } });
  });
});
