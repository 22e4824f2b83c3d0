import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson } from './post-json.js';
import { checkOutboundUrl } from './url-guard.js';

/** Only loopback is used: the guard must refuse before any connection is made. */
describe('outbound POST and the SSRF guard', () => {
  let server: Server;
  let port: number;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits++;
      res.writeHead(204).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const opts = (allowPrivate: boolean) => ({ allowPrivate, timeoutMs: 2_000 });

  it('posts when private addresses are allowed', async () => {
    const r = await postJson(`http://127.0.0.1:${port}/x`, '{}', {}, opts(true));
    expect(r).toMatchObject({ status: 204, error: null, aborted: false });
  });

  it('refuses a loopback literal and a name resolving to loopback without connecting', async () => {
    const before = hits;
    const literal = await postJson(`http://127.0.0.1:${port}/x`, '{}', {}, opts(false));
    expect(literal.status).toBeNull();
    expect(literal.error).toMatch(/loopback/);
    const named = await postJson(`http://localhost:${port}/x`, '{}', {}, opts(false));
    expect(named.status).toBeNull();
    expect(named.error).toMatch(/loopback/);
    expect(hits).toBe(before);
  });

  it('times out a receiver that never answers', async () => {
    const hang = createServer(() => {});
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    const r = await postJson(`http://127.0.0.1:${(hang.address() as AddressInfo).port}/`, '{}', {}, { allowPrivate: true, timeoutMs: 300 });
    hang.closeAllConnections();
    hang.close();
    expect(r).toMatchObject({ status: null, error: 'timed out after 300 ms' });
    expect(r.durationMs).toBeGreaterThanOrEqual(290);
  });

  it('reads at most excerptBytes of a huge answer, then drops the connection', async () => {
    let written = 0;
    let closedEarly = false;
    const big = createServer((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      // Writes until the client hangs up: 64 MiB if it read everything.
      const pump = () => {
        while (written < 64 * 1024 * 1024 && res.write(chunk)) written += chunk.length;
        if (written < 64 * 1024 * 1024) res.once('drain', pump);
        else res.end();
      };
      res.on('close', () => (closedEarly = !res.writableFinished));
      pump();
    });
    await new Promise<void>((r) => big.listen(0, '127.0.0.1', r));
    try {
      const r = await postJson(`http://127.0.0.1:${(big.address() as AddressInfo).port}/`, '{}', {}, { allowPrivate: true, timeoutMs: 5_000, excerptBytes: 200 });
      expect(r).toMatchObject({ status: 500, error: null, excerptCut: true });
      expect(r.excerpt).toEqual(Buffer.alloc(200, 'x'));
      await new Promise((done) => setTimeout(done, 50));
      expect(closedEarly).toBe(true);
      expect(written).toBeLessThan(16 * 1024 * 1024);
    } finally {
      big.closeAllConnections();
      big.close();
    }
  });

  it('keeps the status of a receiver whose body never ends, with what arrived, at the deadline', async () => {
    const slow = createServer((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.write('partial'); // and never more
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    try {
      const started = Date.now();
      const r = await postJson(`http://127.0.0.1:${(slow.address() as AddressInfo).port}/`, '{}', {}, { allowPrivate: true, timeoutMs: 300, excerptBytes: 200 });
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(r).toMatchObject({ status: 503, error: null, aborted: false, excerptCut: true });
      expect(r.excerpt?.toString()).toBe('partial');
      expect(r.durationMs).toBeLessThan(290); // until the status, not the deadline
    } finally {
      slow.closeAllConnections();
      slow.close();
    }
  });

  it('reads no body unless asked, and a complete short one whole', async () => {
    const r = await postJson(`http://127.0.0.1:${port}/x`, '{}', {}, opts(true));
    expect(r).toMatchObject({ excerpt: Buffer.alloc(0), excerptCut: false });
    const short = createServer((_req, res) => res.writeHead(200).end('thanks'));
    await new Promise<void>((done) => short.listen(0, '127.0.0.1', done));
    try {
      const got = await postJson(`http://127.0.0.1:${(short.address() as AddressInfo).port}/`, '{}', {}, { allowPrivate: true, timeoutMs: 2_000, excerptBytes: 200 });
      expect(got).toMatchObject({ status: 200, excerptCut: false });
      expect(got.excerpt?.toString()).toBe('thanks');
    } finally {
      short.close();
    }
  });

  it('checks URLs at save time', async () => {
    const refused = async (url: string) => checkOutboundUrl(url, { allowPrivate: false }).then(() => 'accepted', (e: { code: string }) => e.code);
    expect(await refused('ftp://example.com/')).toBe('unsupported_scheme');
    expect(await refused('https://user:pass@example.com/')).toBe('credentials_in_url');
    expect(await refused('http://0x7f000001/')).toBe('private_address');
    expect(await refused('http://2130706433/')).toBe('private_address');
    expect(await refused('http://[::ffff:127.0.0.1]/')).toBe('private_address');
    expect(await refused('http://[fd00:ec2::254]/')).toBe('private_address');
    expect(await refused('not a url')).toBe('invalid_format');
    expect(await checkOutboundUrl('http://127.0.0.1/', { allowPrivate: true }).then((u) => u.href)).toBe('http://127.0.0.1/');
  });
});
