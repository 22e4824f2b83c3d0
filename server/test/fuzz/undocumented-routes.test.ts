import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dialect, type TestApp } from '../harness.js';
import { rawRequest, type RawResponse } from '../raw-http.js';
import { fuzzParameters } from './fuzz-settings.js';
import { oddPathTail } from './request-parts.js';
import { problemViolations } from './response-oracle.js';

/**
 * Property 5: the routes the OpenAPI document leaves out (Swagger UI and its static files, the
 * errors page, the dashboard's pages and assets, health) under odd path tails and conditional or
 * range headers. The endpoint property walks documented operations only, so it never sent a dot
 * segment to /docs/static/, where the static file server's 403 once became a 500. Every request
 * goes over a real socket, because inject (like any URL parser) removes dot segments first.
 */
const PREFIXES = ['/docs/static/', '/docs/', '/docs/errors/', '/assets/', '/', '/reset-password/', '/verify-email/', '/healthz/', '/.well-known/'];

/** Without a dashboard build its client routes answer this page with 503, on purpose. */
const NOT_BUILT = 'The dashboard has not been built';

const conditionalHeaders: fc.Arbitrary<Record<string, string>> = fc.record(
  {
    range: fc.constantFrom('bytes=0-0', 'bytes=999999999-', 'bytes=5-1', 'bytes=zz', 'bytes=-0', 'bytes=0-1,2-3', 'items=0-1', ''),
    'if-match': fc.constantFrom('"nope"', '*', 'W/"x"', ''),
    'if-none-match': fc.constantFrom('"nope"', '*'),
    'if-modified-since': fc.constantFrom('Mon, 01 Jan 1990 00:00:00 GMT', 'yesterday'),
    'if-unmodified-since': fc.constantFrom('Mon, 01 Jan 1990 00:00:00 GMT', 'not a date'),
    'if-range': fc.constantFrom('"nope"', 'Mon, 01 Jan 1990 00:00:00 GMT'),
  },
  { requiredKeys: [] },
);

async function violations(port: number, target: string, method: string, res: RawResponse): Promise<string[]> {
  if (res.statusCode === 503) {
    // HEAD has no body to show it: a GET of the same target tells.
    const page = method === 'GET' ? res : await rawRequest(port, target);
    if (page.statusCode === 503 && page.body.includes(NOT_BUILT)) return [];
  }
  const problems: string[] = [];
  if (res.statusCode >= 500) problems.push(`answered ${res.statusCode} (a server error)`);
  // HEAD answers carry no body to check.
  if (res.statusCode >= 400 && method === 'GET') problems.push(...problemViolations(res));
  return problems;
}

describe(`routes outside the OpenAPI document under odd paths (${dialect})`, () => {
  let t: TestApp;
  let port: number;
  let sent = 0;
  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  it('never answers a 5xx, answers every error as problem+json, and logs no error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PREFIXES), oddPathTail, fc.constantFrom('GET', 'HEAD'), conditionalHeaders, async (prefix, tail, method, headers) => {
        const target = prefix + tail;
        const res = await rawRequest(port, target, { method, headers });
        sent++;
        const problems = await violations(port, target, method, res);
        if (problems.length > 0) throw new Error(`${problems.join('; ')}\n  request: ${method} ${target.slice(0, 200)} ${JSON.stringify(headers)}\n  answer: ${res.statusCode} ${res.body.slice(0, 300)}`);
      }),
      fuzzParameters(25),
    );
    expect(sent).toBeGreaterThan(0);
    expect(t.logs.filter((line) => (JSON.parse(line) as { level: number }).level >= 50)).toEqual([]);
  });
});
