import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_CSP, DASHBOARD_DIST } from '../src/http/dashboard.js';
import { STATIC_PAGE_CSP } from '../src/http/page-headers.js';
import { docsCsp } from '../src/http/openapi.js';
import { createTestApp, dialect, type TestApp } from './harness.js';

/**
 * What the browser-facing pages send (dashboard, Swagger UI, the errors page, the OpenAPI
 * document), and CORS as CORS_ORIGINS configures it, through the whole app. The dashboard
 * plugin's own behaviour over a made-up build is in routes/dashboard.test.ts.
 */

const FOREIGN = 'https://evil.example';
const ALLOWED = ['https://app.example.com', 'https://admin.example.com'];
const BUILT = existsSync(join(DASHBOARD_DIST, 'index.html'));

/** Framing refused both ways (CSP for current browsers, X-Frame-Options for old ones), no Referer. */
function expectPageHeaders(res: LightMyRequestResponse, csp: string, what: string) {
  expect(res.headers['content-security-policy'], what).toBe(csp);
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("base-uri 'none'");
  expect(csp).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
  expect(res.headers['x-frame-options'], what).toBe('DENY');
  expect(res.headers['referrer-policy'], what).toBe('no-referrer');
  expect(res.headers['x-content-type-options'], what).toBe('nosniff');
}

/** A strict script-src only holds if the page has no inline script to break. */
function expectNoInlineScript(html: string) {
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
  expect(scripts.length).toBeGreaterThan(0);
  for (const [, attributes, body] of scripts) {
    expect(attributes).toMatch(/\bsrc=/);
    expect(body!.trim()).toBe('');
  }
  expect(html).not.toMatch(/\son[a-z]+\s*=/i); // no inline event handlers either
}

/**
 * Without Access-Control-Allow-Origin the browser hides the answer from the calling page; the
 * other headers do not matter then (@fastify/cors still lists its methods on a refused preflight).
 */
function expectNoCors(res: LightMyRequestResponse, what: string) {
  expect(res.headers['access-control-allow-origin'], what).toBeUndefined();
  expect(res.headers['access-control-allow-credentials'], what).toBeUndefined();
}

const preflight = (t: TestApp, origin: string, url = '/v1/agents') =>
  t.request({ method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } });

describe(`security headers of the browser pages (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('the dashboard at / and its client routes', async () => {
    for (const url of ['/', '/login', '/settings/api-keys', '/reset-password?token=abc']) {
      const res = await t.request({ method: 'GET', url });
      expect(BUILT ? 200 : 503, url).toBe(res.statusCode);
      expectPageHeaders(res, DASHBOARD_CSP, url);
      if (BUILT) expectNoInlineScript(res.body);
    }
    expect(DASHBOARD_CSP).toContain("connect-src 'self'");
  });

  it('the dashboard build exists in CI, where the asset checks below must run', () => {
    if (process.env.CI === 'true') expect(BUILT, 'run `npm run build -w dashboard` first').toBe(true);
  });

  it.runIf(BUILT)('the dashboard\'s hashed assets, through the whole app', async () => {
    const index = readFileSync(join(DASHBOARD_DIST, 'index.html'), 'utf8');
    const assets = [...index.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(0);
    for (const url of assets) {
      const res = await t.request({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-security-policy'], url).toBe(DASHBOARD_CSP);
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['content-type'], url).toMatch(/^(text\/css|(text|application)\/javascript)/);
    }
  });

  it('Swagger UI at /docs, and its static files', async () => {
    const csp = docsCsp();
    for (const url of ['/docs', '/docs/']) {
      const res = await t.request({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expectPageHeaders(res, csp, url);
      expectNoInlineScript(res.body);
    }
    for (const file of ['swagger-ui-bundle.js', 'swagger-initializer.js', 'swagger-ui.css']) {
      const res = await t.request({ method: 'GET', url: `/docs/static/${file}` });
      expect(res.statusCode, file).toBe(200);
      expect(res.headers['content-security-policy'], file).toBe(csp);
      expect(res.headers['x-content-type-options'], file).toBe('nosniff');
    }
    // "Try it out" calls the document's server, so the CSP must allow exactly that origin.
    expect(csp).toContain("connect-src 'self';");
  });

  it('the errors page at /docs/errors', async () => {
    const res = await t.request({ method: 'GET', url: '/docs/errors' });
    expect(res.statusCode).toBe(200);
    expectPageHeaders(res, STATIC_PAGE_CSP, '/docs/errors');
    expect(STATIC_PAGE_CSP).toMatch(/^default-src 'none'/);
  });

  it('the OpenAPI document: JSON that is never sniffed or stored', async () => {
    for (const url of ['/v1/openapi.json', '/docs/json']) {
      const res = await t.request({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toMatch(/^application\/json/);
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.json().openapi).toBe('3.1.0');
    }
    expect((await t.request({ method: 'GET', url: '/v1/openapi.json' })).headers['cache-control']).toBe('no-store');
  });

  it('without CORS_ORIGINS, a foreign origin gets no CORS header anywhere, preflight included', async () => {
    for (const url of ['/', '/docs', '/docs/errors', '/v1/openapi.json', '/v1/.well-known/jwks.json', '/v1/users/me']) {
      expectNoCors(await t.request({ method: 'GET', url, headers: { origin: FOREIGN } }), url);
    }
    const res = await preflight(t, FOREIGN);
    expectNoCors(res, 'preflight');
    expect(res.headers['access-control-allow-methods']).toBeUndefined();
    expect(res.statusCode).toBe(405);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});

describe(`CORS_ORIGINS (${dialect})`, () => {
  let listed: TestApp;
  let any: TestApp;
  beforeAll(async () => {
    listed = await createTestApp({ env: { CORS_ORIGINS: ALLOWED.join(', ') } });
    any = await createTestApp({ env: { CORS_ORIGINS: '*' } });
  });
  afterAll(async () => {
    await listed.close();
    await any.close();
  });

  it('a list answers only its own origins, each echoed exactly, errors included', async () => {
    for (const origin of ALLOWED) {
      // A 401 too: a browser client must be able to read the problem+json and its request id.
      for (const url of ['/v1/.well-known/jwks.json', '/v1/users/me']) {
        const res = await listed.request({ method: 'GET', url, headers: { origin } });
        expect(res.headers['access-control-allow-origin'], `${origin} ${url}`).toBe(origin);
        expect(res.headers.vary).toMatch(/origin/i);
        expect(res.headers['access-control-expose-headers']).toMatch(/X-Request-Id/);
        expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      }
    }
    const lookalikes = [FOREIGN, 'https://app.example.com.evil.example', 'http://app.example.com', 'https://evilapp.example.com', 'null'];
    for (const origin of lookalikes) {
      expectNoCors(await listed.request({ method: 'GET', url: '/v1/.well-known/jwks.json', headers: { origin } }), origin);
    }
  });

  it('a preflight from a listed origin is allowed for the API\'s methods and headers; others get none', async () => {
    const res = await preflight(listed, ALLOWED[0]!);
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(ALLOWED[0]);
    expect(res.headers['access-control-allow-methods']).toBe('GET, POST, PATCH, DELETE');
    // The team a call acts for travels in Gatehouse-Organization (the SDK's `organization` option).
    const allowed = String(res.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'idempotency-key', 'last-event-id', 'gatehouse-organization']));
    expect(res.headers['access-control-max-age']).toBe('600');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expectNoCors(await preflight(listed, FOREIGN), 'foreign preflight');
  });

  it('"*" answers every origin with "*" and never allows credentials', async () => {
    for (const origin of [FOREIGN, ALLOWED[0]!]) {
      const simple = await any.request({ method: 'GET', url: '/v1/users/me', headers: { origin, cookie: 'a=b' } });
      expect(simple.headers['access-control-allow-origin']).toBe('*');
      expect(simple.headers['access-control-allow-credentials']).toBeUndefined();
      const pre = await preflight(any, origin);
      expect(pre.statusCode).toBe(204);
      expect(pre.headers['access-control-allow-origin']).toBe('*');
      expect(pre.headers['access-control-allow-credentials']).toBeUndefined();
    }
  });
});
