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

describe('clientErrorHandler', () => {
  let app: FastifyInstance;
  let port: number;
  beforeAll(async () => {
    app = Fastify({ clientErrorHandler: clientErrorHandler('https://gatehouse.example'), requestTimeout: 300, http: { headersTimeout: 300, connectionsCheckingInterval: 100 } });
    app.get('/', async () => 'ok');
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(() => app.close());

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

  it('answers a request too slow to arrive with 408 request_timeout', async () => {
    const res = parse(await exchange(port, 'GET / HTTP/1.1\r\nHost: x\r\n'));
    expect(res).toMatchObject({ status: 408, body: { code: 'request_timeout', status: 408 } });
  });
});
