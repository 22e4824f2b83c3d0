import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './harness.js';

/** One raw HTTP/1.1 request, the target sent byte for byte (no client normalises it first). */
function rawGet(port: number, target: string, headers = ''): Promise<{ status: number; contentType: string | undefined }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('end', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1]);
      resolve({ status, contentType: /\r\ncontent-type: ([^\r]+)/i.exec(received)?.[1] });
    });
    socket.write(`GET ${target} HTTP/1.1\r\nHost: localhost\r\n${headers}Connection: close\r\n\r\n`);
  });
}

/**
 * Odd paths under the static files (Swagger UI's under /docs/static, the dashboard's) answer a
 * 4xx problem, never a 500: dot segments, NUL bytes, names too long for the file system, broken
 * percent-encoding, dotfiles, ranges past the end.
 */
describe('odd static paths', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });
  afterAll(() => t.close());

  const targets = [
    '/docs/static/../../../etc/passwd', '/docs/static/%2e%2e/%2e%2e/etc/passwd', '/docs/static/..%2f..%2fetc%2fpasswd',
    '/docs/static/%00', '/docs/static/index.html%00.js', '/docs/static/a%00b', `/docs/static/${'a'.repeat(4000)}`,
    '/docs/static/%zz', '/docs/static/%c0%ae%c0%ae/x', '/docs/static/.env', '/docs/static//etc/passwd',
    '/assets/../../package.json', '/assets/%00', '/assets/%2e%2e/index.html', `/assets/${'b'.repeat(4000)}.js`, '/assets/.hidden',
  ];

  it.each(targets)('GET %s answers a 4xx problem', async (target) => {
    const { status, contentType } = await rawGet(port, target);
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(500);
    expect(contentType).toMatch(/^application\/problem\+json/);
  });

  it('answers a range past the end of a static file with 416', async () => {
    const { status, contentType } = await rawGet(port, '/docs/static/swagger-ui.css', 'Range: bytes=99999999-\r\n');
    expect(status).toBe(416);
    expect(contentType).toMatch(/^application\/problem\+json/);
  });

  it('logged none of them as a failure', () => {
    const failures = t.logs.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((entry) => entry.level >= 50);
    expect(failures).toEqual([]);
  });
});
