import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerDashboard } from '../../src/http/dashboard.js';
import { trackAllowedMethods } from '../../src/http/method-router.js';
import { frameworkErrorHandler, registerProblemHandlers } from '../../src/http/problem.js';
import { deferredChildLoggerFactory } from '../../src/http/request-logger.js';
import { createLogger } from '../../src/kernel/logger.js';
import { problemViolations } from '../fuzz/response-oracle.js';
import { createTestApp, dialect, type TestApp } from '../harness.js';
import { rawRequest } from '../raw-http.js';

/**
 * Paths a scanner tries on anything that serves files: dot segments (plain and encoded), NUL,
 * encoded slashes and backslashes, over-long names, broken percent-encoding, dotfiles. Each must
 * be a 4xx problem (mostly 404: which files exist is nobody's business), never a 500.
 */
const ODD_TAILS = [
  '../x', '../../package.json', '%2e%2e/x', '%2E%2E/%2E%2E/package.json', '..%2f..%2fpackage.json', '%2e%2e%2f%2e%2e%2fpackage.json',
  '.%2e/x', './x', './/x', 'x/..', 'x/../..', '%00', 'x%00', 'x%00.css', '%2fetc%2fpasswd', '%5c..%5cx', 'x%5cy', '%zz', '%E0%A4%A',
  '%C0%AE%C0%AE/x', '%252e%252e/x', '.env', '.git/config', 'a'.repeat(300), `${'a/'.repeat(600)}x`, 'x;.css', 'x?', '~', '%20', '*',
];

/** `/settings/*` is a client route for any path below it; the dashboard suite below covers it with a build. */
const PREFIXES = ['/docs/static/', '/docs/', '/assets/', '/', '/reset-password/'];

function badAnswers(target: string, res: Parameters<typeof problemViolations>[0]): string[] {
  const problems = problemViolations(res).map((p) => `${target}: ${p}`);
  if (res.statusCode < 400 || res.statusCode >= 500) problems.push(`${target}: answered ${res.statusCode}, not a 4xx`);
  return problems;
}

function errorLines(logs: string[]): string[] {
  return logs.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
}

describe(`odd paths to the docs and static files (${dialect})`, () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  it('answers every odd path with a 4xx problem+json and logs no error, over a real socket and through inject', async () => {
    const problems: string[] = [];
    for (const prefix of PREFIXES) {
      for (const tail of ODD_TAILS) {
        const target = prefix + tail;
        // A lone "?" or "x?" keeps its meaning as a query; everything else is the path.
        for (const method of ['GET', 'HEAD']) {
          const raw = await rawRequest(port, target, { method });
          if (method === 'GET') problems.push(...badAnswers(`${method} ${target} (socket)`, raw));
          else if (raw.statusCode < 400 || raw.statusCode >= 500) problems.push(`HEAD ${target}: answered ${raw.statusCode}`);
        }
        // inject parses the URL first, which removes dot segments: "/x/.." is "/" to it, so such a
        // target must answer exactly as the path it normalises to.
        const injected = await t.request({ method: 'GET', url: target });
        const normalised = new URL(target, 'http://gatehouse.test').pathname;
        if (normalised === target.split('?')[0]) problems.push(...badAnswers(`GET ${target} (inject)`, injected));
        else {
          const direct = await t.request({ method: 'GET', url: normalised });
          if (injected.statusCode !== direct.statusCode) problems.push(`GET ${target} (inject): ${injected.statusCode}, but ${direct.statusCode} for ${normalised}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(errorLines(t.logs)).toEqual([]);
  });

  it('a dot segment or NUL under /docs/static is 404 not_found, like a missing file', async () => {
    for (const target of ['/docs/static/../x', '/docs/static/%2e%2e/x', '/docs/static/%00', '/docs/static/no-such-file.css', `/docs/static/${'a'.repeat(5000)}`]) {
      const res = await rawRequest(port, target);
      expect(res.statusCode, target).toBe(404);
      expect(JSON.parse(res.body).code, target).toBe('not_found');
    }
    // The route exists for GET and HEAD: a missing file is not a wrong method.
    const head = await rawRequest(port, '/docs/static/no-such-file.css', { method: 'HEAD' });
    expect(head.statusCode).toBe(404);
    const post = await rawRequest(port, '/docs/static/swagger-ui.css', { method: 'POST' });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toContain('GET');
  });

  it('answers ranges and preconditions a static file cannot meet with 416 and 412 problems', async () => {
    const file = '/docs/static/swagger-ui.css';
    const whole = await rawRequest(port, file);
    expect(whole.statusCode).toBe(200);
    const range = await rawRequest(port, file, { headers: { range: 'bytes=999999999-' } });
    expect(problemViolations(range)).toEqual([]);
    expect(range.statusCode).toBe(416);
    expect(JSON.parse(range.body).code).toBe('range_not_satisfiable');
    expect(range.headers['content-range']).toBe(`bytes */${Buffer.byteLength(whole.body)}`);
    const preconditions: Array<Record<string, string>> = [{ 'if-match': '"not-this-one"' }, { 'if-unmodified-since': 'Mon, 01 Jan 1990 00:00:00 GMT' }];
    for (const headers of preconditions) {
      const res = await rawRequest(port, file, { headers });
      expect(problemViolations(res)).toEqual([]);
      expect(res.statusCode).toBe(412);
      expect(JSON.parse(res.body).code).toBe('precondition_failed');
    }
    // A satisfiable range still gets its part.
    const part = await rawRequest(port, file, { headers: { range: 'bytes=0-9' } });
    expect(part.statusCode).toBe(206);
    expect(part.body).toBe(whole.body.slice(0, 10));
    expect(errorLines(t.logs)).toEqual([]);
  });
});

/** The dashboard plugin with the app's logger and error handling (buildApp's options), over `dist`. */
async function dashboardApp(dist: string, logs: string[]) {
  const app = Fastify({
    loggerInstance: createLogger('debug', { write: (line: string) => void logs.push(line) }) as FastifyBaseLogger,
    childLoggerFactory: deferredChildLoggerFactory,
    frameworkErrors: frameworkErrorHandler('http://gatehouse.test'),
  });
  registerProblemHandlers(app, { publicUrl: 'http://gatehouse.test', allowedMethods: trackAllowedMethods(app) });
  await registerDashboard(app, { distDir: dist });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app;
}

describe('odd paths to the built dashboard', () => {
  let dir: string;
  let app: FastifyInstance;
  let port: number;
  const logs: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-odd-paths-'));
    const dist = join(dir, 'dist');
    mkdirSync(join(dist, 'assets'), { recursive: true });
    writeFileSync(join(dist, 'index.html'), '<!doctype html><title>Gatehouse</title>');
    writeFileSync(join(dist, 'assets', 'app-abc123.js'), 'console.log(1)');
    writeFileSync(join(dist, 'secret.txt'), 'not an asset');
    app = await dashboardApp(dist, logs);
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const tails = [...ODD_TAILS, '../secret.txt', '%2e%2e/secret.txt', '..%2fsecret.txt', '../index.html'];

  it('answers every odd path under /assets/ and / with a 4xx problem+json and logs no error', async () => {
    const problems: string[] = [];
    for (const prefix of ['/assets/', '/assets/app-abc123.js/', '/']) {
      for (const tail of tails) {
        const target = prefix + tail;
        problems.push(...badAnswers(`GET ${target} (socket)`, await rawRequest(port, target)));
      }
    }
    expect(problems).toEqual([]);
    expect(errorLines(logs)).toEqual([]);
  });

  it('answers odd paths under /settings/ (a client route for any path) with the page or a 4xx problem, never another file', async () => {
    const problems: string[] = [];
    for (const tail of tails) {
      const target = `/settings/${tail}`;
      const res = await rawRequest(port, target);
      if (res.statusCode === 200 && res.body === '<!doctype html><title>Gatehouse</title>\n    <meta name="application-name" content="Gatehouse">') continue;
      problems.push(...badAnswers(`GET ${target} (socket)`, res));
    }
    expect(problems).toEqual([]);
    expect(errorLines(logs)).toEqual([]);
  });

  it('answers unsatisfiable ranges and failed preconditions on assets and pages with 416 and 412', async () => {
    for (const target of ['/assets/app-abc123.js', '/login']) {
      const range = await rawRequest(port, target, { headers: { range: 'bytes=999999-' } });
      expect(problemViolations(range), target).toEqual([]);
      expect(range.statusCode, target).toBe(416);
      expect(range.headers['content-range'], target).toMatch(/^bytes \*\/\d+$/);
      const precondition = await rawRequest(port, target, { headers: { 'if-match': '"nope"' } });
      expect(problemViolations(precondition), target).toEqual([]);
      expect(precondition.statusCode, target).toBe(412);
    }
    expect(errorLines(logs)).toEqual([]);
  });
});
