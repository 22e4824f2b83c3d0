import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from '../server-process.js';
import { signUpOver } from '../webhooks/process-helpers.js';
import { call, inBatches, paced, type Outcome } from './http.js';
import { rawConnection, statusOf, type RawConnection } from './raw-sockets.js';
import { sqliteStorage, type Storage } from './storage.js';

/**
 * Slow clients cannot starve the others, and do not hold on forever. Hundreds of connections
 * send their headers a byte at a time (slowloris) or nothing at all, and one uploads a body a
 * byte a second; meanwhile a normal client is served quickly, throughout. Then HEADERS_TIMEOUT
 * cuts the first ones off and REQUEST_TIMEOUT the upload: when configured, not earlier and not
 * much later (short values here, so the test takes seconds; the defaults are 15 s and 30 s).
 */
const SLOW_HEADERS = 250;
const IDLE = 150;
const HEADERS_TIMEOUT_S = 4;
const REQUEST_TIMEOUT_S = 8;
const LATE_MS = 5_000; // the server checks every second; the rest is room for a loaded machine
const NORMAL_BOUND_MS = 3_000; // a loaded 2-core machine answers in ms; this only catches starvation

describe('slow clients', () => {
  let storage: Storage;
  let server: ServerProcess;
  const raw: RawConnection[] = [];
  beforeAll(async () => {
    storage = sqliteStorage();
    server = await startServer({
      DATABASE_URL: storage.url, LOG_LEVEL: 'warn', PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000',
      HEADERS_TIMEOUT: String(HEADERS_TIMEOUT_S), REQUEST_TIMEOUT: String(REQUEST_TIMEOUT_S),
    });
  }, 60_000);
  afterAll(async () => {
    for (const c of raw) c.destroy();
    await server?.stop('SIGKILL');
    await storage?.drop();
  });

  it('serve a normal client within a bound while slowloris and a slow upload run, then get cut off', async () => {
    const token = await signUpOver(server.base);
    const slowBody = await rawConnection(
      server.base,
      'POST /v1/auth/register HTTP/1.1\r\nHost: gatehouse\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n{',
      { byte: ' ', everyMs: 1_000 },
    );
    raw.push(slowBody);
    const slowHeaders = await inBatches(Array.from({ length: SLOW_HEADERS }, (_, i) => i), 50, (i) =>
      rawConnection(server.base, `GET /v1/users/me HTTP/1.1\r\nHost: gatehouse\r\nX-Slow-${i}: `, { byte: 'a', everyMs: 2_000 }));
    const idle = await inBatches(Array.from({ length: IDLE }, () => 0), 50, () => rawConnection(server.base, ''));
    raw.push(...slowHeaders, ...idle);

    // A normal client: a new connection each time (to see that new ones are still accepted and
    // read), and an authenticated request on fetch's pooled connection.
    const normal: Outcome[] = [];
    let stop = false;
    const probe = paced(500, () => stop, async () => {
      const started = Date.now();
      const fresh = await rawConnection(server.base, 'GET /healthz HTTP/1.1\r\nHost: gatehouse\r\nConnection: close\r\n\r\n');
      await Promise.race([fresh.closed, sleep(NORMAL_BOUND_MS * 3)]);
      fresh.destroy();
      normal.push({ method: 'GET', path: '/healthz (new connection)', at: 0, ms: Date.now() - started, status: statusOf(fresh.received()) });
      normal.push(await call(server.base, 'GET', '/v1/agents?limit=1', { token, timeoutMs: NORMAL_BOUND_MS * 3 }));
    });

    const slow = [...slowHeaders, ...idle];
    const cutOff = await Promise.race([
      Promise.all([slowBody.closed, ...slow.map((c) => c.closed)]).then(() => true),
      sleep(REQUEST_TIMEOUT_S * 1000 + LATE_MS + 5_000).then(() => false),
    ]);
    stop = true;
    await probe;

    expect(normal.length).toBeGreaterThan(10);
    expect(normal.filter((o) => o.status !== 200), JSON.stringify(normal.filter((o) => o.status !== 200).slice(0, 3))).toEqual([]);
    expect(Math.max(...normal.map((o) => o.ms))).toBeLessThan(NORMAL_BOUND_MS);
    // app.ts must hand HEADERS_TIMEOUT to Node (http.headersTimeout) and REQUEST_TIMEOUT (requestTimeout).
    expect(cutOff, `${[slowBody, ...slow].filter((c) => !c.isClosed()).length} slow connections still open: HEADERS_TIMEOUT / REQUEST_TIMEOUT not applied?`).toBe(true);
    // Cut off by the configured timeouts: not before (honest slow networks get their time), not long after.
    const lasted = await Promise.all(slow.map((c) => c.closed));
    expect(Math.min(...lasted)).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_S * 1000 - 500);
    expect(Math.max(...lasted)).toBeLessThan(HEADERS_TIMEOUT_S * 1000 + LATE_MS);
    const upload = await slowBody.closed;
    expect(upload).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_S * 1000 - 500);
    expect(upload).toBeLessThan(REQUEST_TIMEOUT_S * 1000 + LATE_MS);
    // The upload never reached the handler: no account was created from a body cut short.
    expect(statusOf(slowBody.received())).toBe(408);
    expect(server.child.exitCode, server.output()).toBeNull();
  }, 90_000);
});
