import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dialect, type TestApp } from './harness.js';
import { freePort } from './free-port.js';
import { startServer, type ServerProcess } from './server-process.js';

const TOKEN = 'scrape-token-0123456789abcdef0123';

/**
 * Issue 31, defect 9: /metrics (per-route counts by status, memory, the Node version) is no
 * business of the public port. It is served on its own listener (METRICS_PORT, loopback by
 * default) and, on the public port, only to a bearer of METRICS_TOKEN.
 */
describe(`metrics access (${dialect})`, () => {
  let open: TestApp;
  let tokened: TestApp;
  beforeAll(async () => {
    open = await createTestApp();
    tokened = await createTestApp({ env: { METRICS_TOKEN: TOKEN } });
  });
  afterAll(async () => {
    await open.close();
    await tokened.close();
  });

  it('answers /metrics on the public port with 404 by default', async () => {
    const res = await open.request({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).not.toContain('process_cpu');
  });

  it('serves /metrics on the public port only to the bearer of METRICS_TOKEN', async () => {
    expect((await tokened.request({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    const wrong = await tokened.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN.slice(1)}x` } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ code: 'authentication_required' });
    const right = await tokened.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(right.statusCode).toBe(200);
    expect(right.body).toContain('process_cpu_user_seconds_total');
  });

  it('reads the header as every route does (access/caller/authenticate.ts parseBearer): the scheme in any case', async () => {
    for (const authorization of [`bearer ${TOKEN}`, `BEARER  ${TOKEN} `]) {
      const res = await tokened.request({ method: 'GET', url: '/metrics', headers: { authorization } });
      expect(res.statusCode, authorization).toBe(200);
    }
    const basic = await tokened.request({ method: 'GET', url: '/metrics', headers: { authorization: `Basic ${TOKEN}` } });
    expect(basic.statusCode).toBe(401);
  });
});

describe('the metrics listener of a running server (METRICS_PORT)', () => {
  let server: ServerProcess;
  let metricsPort: number;
  beforeAll(async () => {
    metricsPort = await freePort();
    server = await startServer({ METRICS_PORT: String(metricsPort), LOG_LEVEL: 'warn' });
  }, 60_000);
  afterAll(() => server?.stop());

  it('serves request durations by route template on loopback, and the public port does not', async () => {
    await fetch(`${server.base}/v1/users/me`);
    const missing = await fetch(`${server.base}/v1/no-such-route/agt_123`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-request-id')).toBeTruthy();
    expect((await fetch(`${server.base}/metrics`)).status).toBe(404);

    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const body = await res.text();
    expect(body).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/v1\/users\/me",status_code="401"\} \d+/);
    // Answers no route matched are one series, whatever the path (bounded label cardinality).
    expect(body).toMatch(/http_request_duration_seconds_count\{method="GET",route="unmatched",status_code="404"\} \d+/);
    expect(body).not.toContain('no-such-route');
    expect(body).toContain('process_cpu_user_seconds_total');
    expect((await fetch(`http://127.0.0.1:${metricsPort}/v1/users/me`)).status).toBe(404);
  });
});
