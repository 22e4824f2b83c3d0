import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from './harness.js';

/**
 * The documented choice when Redis cannot be reached: keep serving, limit each instance with its
 * own memory limiter, report not-ready, log loudly. Never crash, never hang. Port 1 on loopback
 * refuses connections, so this runs anywhere (no Redis needed).
 */
describe('Redis unreachable', () => {
  let t: TestApp;
  beforeAll(async () => {
    const started = Date.now();
    t = await createTestApp({ env: { REDIS_URL: 'redis://127.0.0.1:1' } });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
  afterAll(() => t.close());

  it('still registers, logs in and serves authenticated requests, within the per-instance limit', async () => {
    const { tokens } = await t.signUp();
    const started = Date.now();
    const statuses: number[] = [];
    for (let i = 0; i < 105; i++) statuses.push((await t.request({ method: 'GET', url: '/v1/agents', headers: bearer(tokens.access_token) })).statusCode);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses.at(-1)).toBe(429);
  });

  it('reports not ready, naming Redis', async () => {
    const res = await t.request({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ code: 'service_unavailable', checks: { database: 'ok', redis: 'unavailable' } });
  });

  it('logs the fallback as an error', () => {
    expect(t.logs.some((line) => line.includes('"level":50') && line.includes('redis'))).toBe(true);
  });
});
