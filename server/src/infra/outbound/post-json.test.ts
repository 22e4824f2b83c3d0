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
