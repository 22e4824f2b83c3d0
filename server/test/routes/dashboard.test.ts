import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_CSP, DASHBOARD_ROUTES, registerDashboard } from '../../src/http/dashboard.js';
import { trackAllowedMethods } from '../../src/http/method-router.js';
import { registerProblemHandlers } from '../../src/http/problem.js';
import { createTestApp, type TestApp } from '../harness.js';

/** The dashboard plugin alone, over a dist folder of our own making, with the app's 404/405 handling. */
async function dashboardApp(distDir: string, productName?: string): Promise<FastifyInstance> {
  const app = Fastify();
  const allowedMethods = trackAllowedMethods(app);
  registerProblemHandlers(app, { publicUrl: 'http://gatehouse.test', allowedMethods });
  app.get('/v1/ping', async () => ({ ok: true }));
  await registerDashboard(app, { distDir, ...(productName ? { productName } : {}) });
  await app.ready();
  return app;
}

describe('dashboard at /', () => {
  let dir: string;
  let built: FastifyInstance;
  let missing: FastifyInstance;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-dashboard-'));
    const dist = join(dir, 'dist');
    mkdirSync(join(dist, 'assets'), { recursive: true });
    writeFileSync(join(dist, 'index.html'), '<!doctype html><title>Gatehouse</title><script type="module" src="/assets/app-abc123.js"></script>');
    writeFileSync(join(dist, 'assets', 'app-abc123.js'), 'console.log(1)');
    writeFileSync(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    built = await dashboardApp(dist);
    missing = await dashboardApp(join(dir, 'not-built'));
  });
  afterAll(async () => {
    await built.close();
    await missing.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers index.html with a strict CSP at every client route', async () => {
    for (const route of [...DASHBOARD_ROUTES.filter((r) => !r.includes('*')), '/settings/api-keys', '/settings/sessions', '/chats/cht_0123456789abcdefghjkmnpqrs']) {
      const res = await built.inject({ method: 'GET', url: `${route}?token=abc` });
      expect(res.statusCode, route).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('<title>Gatehouse</title>');
      expect(res.headers['content-security-policy']).toBe(DASHBOARD_CSP);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['cache-control']).toBe('no-cache');
    }
    expect(DASHBOARD_CSP).toContain("script-src 'self'");
    expect(DASHBOARD_CSP).not.toContain('unsafe-inline');
  });

  it("names the product (PRODUCT_NAME) in the page's title and for the dashboard to read, escaped; one build serves any name", async () => {
    const acme = await dashboardApp(join(dir, 'dist'), 'Acme & Co');
    try {
      const page = await acme.inject({ method: 'GET', url: '/login' });
      expect(page.body).toContain('<title>Acme &amp; Co</title>');
      expect(page.body).toContain('<meta name="application-name" content="Acme &amp; Co">');
      expect(page.headers.etag).toBeDefined();
      expect((await acme.inject({ method: 'GET', url: '/login', headers: { 'if-none-match': String(page.headers.etag) } })).statusCode).toBe(304);
    } finally {
      await acme.close();
    }
    expect((await built.inject({ method: 'GET', url: '/' })).body).toContain('<meta name="application-name" content="Gatehouse">');
  });

  it('serves hashed assets for a year, and unknown ones as a problem+json 404', async () => {
    const asset = await built.inject({ method: 'GET', url: '/assets/app-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-security-policy']).toBe(DASHBOARD_CSP);
    for (const url of ['/assets/nope.js', '/assets/../index.html', '/index.html', '/nope']) {
      const res = await built.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    expect((await built.inject({ method: 'GET', url: '/favicon.svg' })).statusCode).toBe(200);
  });

  it('does not shadow the API', async () => {
    expect((await built.inject({ method: 'GET', url: '/v1/ping' })).json()).toEqual({ ok: true });
    const unknown = await built.inject({ method: 'GET', url: '/v1/nope' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'not_found' });
    expect(unknown.headers['content-security-policy']).toBeUndefined();
  });

  it('without a build the server still starts and says how to build it', async () => {
    const res = await missing.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('npm run build -w dashboard');
    expect(res.headers['content-security-policy']).toBe(DASHBOARD_CSP);
    expect((await missing.inject({ method: 'GET', url: '/favicon.svg' })).statusCode).toBe(404);
    expect((await missing.inject({ method: 'GET', url: '/assets/app-abc123.js' })).statusCode).toBe(404);
  });
});

describe('dashboard in the whole app', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('is at / (built or not) while /v1 and the operations routes keep their answers', async () => {
    const root = await t.request({ method: 'GET', url: '/' });
    expect([200, 503]).toContain(root.statusCode);
    expect(root.headers['content-security-policy']).toBe(DASHBOARD_CSP);
    expect((await t.request({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const unknown = await t.request({ method: 'GET', url: '/v1/nope' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^application\/problem\+json/);
    const doc = (await t.request({ method: 'GET', url: '/v1/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith('/v1/') && !['/healthz', '/readyz', '/metrics', '/.well-known/openid-configuration', '/oauth/interaction/{uid}/details', '/oauth/interaction/{uid}/decision', '/oauth/interaction/{uid}/continue'].includes(p))).toEqual([]);
  });
});
