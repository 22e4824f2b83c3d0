import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dialect, type TestApp } from '../harness.js';

describe(`operations endpoints (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('healthz answers while the process is up', async () => {
    const res = await t.request({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('readyz reports the database (and Redis when configured)', async () => {
    const res = await t.request({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', checks: process.env.REDIS_URL ? { database: 'ok', redis: 'ok' } : { database: 'ok' } });
  });

  it('readyz answers 503 service_unavailable when a dependency fails', async () => {
    t.deps.readiness.push({ name: 'broken', check: () => Promise.reject(new Error('down')) });
    try {
      const res = await t.request({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ code: 'service_unavailable', checks: { database: 'ok', broken: 'unavailable' } });
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body).not.toContain('down'); // the internal error text stays inside
    } finally {
      t.deps.readiness.pop();
    }
  });
  // /metrics: test/metrics-access.test.ts (its own listener, or a token on this port).
});
