import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../src/kernel/errors.js';
import { roleForScope } from '../src/kernel/access-terms/roles.js';
import { bearer, createTestApp, dialect, type TestApp } from './harness.js';
import { redoclyLint } from './redocly-lint.js';

/**
 * The contract document: GET /v1/openapi.json is OpenAPI 3.1, generated from the
 * route schemas, covers every route the app serves, passes `redocly lint`, and says what the
 * server really does (security, problem+json errors, body shapes).
 */

const PROBLEM_MEDIA_TYPE = 'application/problem+json';
const PROBLEM_REF = '#/components/schemas/Problem';
const OPERATIONS_OUTSIDE_V1 = ['/healthz', '/readyz', '/metrics', '/.well-known/openid-configuration', '/oauth/interaction/:uid/details', '/oauth/interaction/:uid/decision', '/oauth/interaction/:uid/continue'];
/**
 * Public GETs with no parameters and no body: nothing a client sends can be wrong, so they have
 * no 4xx to document (redocly's operation-4xx-response warns about them; that warning is known).
 * The test below checks they really take no input, so adding a parameter forces a documented 400.
 */
const NO_CLIENT_ERRORS = new Set(['GET /healthz', 'GET /readyz', 'GET /v1/.well-known/jwks.json', 'GET /.well-known/openid-configuration']);
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface ServedRoute {
  method: string;
  url: string;
  /** config.auth of the route: what registerAuthentication enforces. */
  auth: string | undefined;
  budget: string | undefined;
  /** What route-policy.ts reads besides: the step-up class, how it treats a key, the declared role. */
  stepUp: string | undefined;
  key: string | undefined;
  role: string | undefined;
}

interface Operation {
  operationId?: string;
  summary?: string;
  security?: Record<string, string[]>[];
  description?: string;
  'x-gatehouse-auth'?: { requires: string; api_keys: boolean; spends_budget: boolean };
  parameters?: { in: string; name: string }[];
  requestBody?: unknown;
  responses: Record<string, { description?: string; content?: Record<string, { schema?: { $ref?: string } }>; headers?: Record<string, { required?: boolean; schema?: unknown }> }>;
}

type OpenApiDocument = {
  openapi: string;
  paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
  components: { schemas: Record<string, unknown>; securitySchemes?: Record<string, Record<string, unknown>> };
};

/** `/v1/sessions/:id` → `/v1/sessions/{id}` */
const toOpenApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

function operationsOf(doc: OpenApiDocument): { key: string; method: string; path: string; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ key: `${m.toUpperCase()} ${path}`, method: m.toUpperCase(), path, op: item[m]! })),
  );
}

/** Served operations the document lacks, as "METHOD /path". */
function missingFromDocument(routes: ServedRoute[], doc: OpenApiDocument): string[] {
  return routes
    .filter((r) => !doc.paths[toOpenApiPath(r.url)]?.[r.method.toLowerCase() as (typeof METHODS)[number]])
    .map((r) => `${r.method} ${toOpenApiPath(r.url)}`);
}

/**
 * Public operations that take a session when one comes: following a change of email's link needs
 * the account's owner signed in (a registration link does not), so the document offers no
 * credential or bearerAuth.
 */
const OPTIONAL_CREDENTIAL = new Set(['POST /v1/auth/email/verify']);
/** Public sign-ins that take a guest's access token too: the guest becomes the account signed in to. */
const OPTIONAL_GUEST_CREDENTIAL = new Set(['POST /v1/auth/id-token', 'POST /v1/auth/oidc/token']);

describe(`OpenAPI document and docs (${dialect})`, () => {
  let t: TestApp;
  let doc: OpenApiDocument;
  const served: ServedRoute[] = [];

  beforeAll(async () => {
    // Fastify announces every new instance on this channel before any plugin or route is
    // registered, so the hook sees every route buildApp adds, wherever it is declared.
    const collect = (message: unknown) => {
      const { fastify } = message as { fastify: FastifyInstance };
      fastify.addHook('onRoute', (route: RouteOptions) => {
        for (const method of [route.method].flat()) {
          served.push({ method, url: route.url, auth: route.config?.auth, budget: route.config?.budget, stepUp: route.config?.stepUp, key: route.config?.key, role: route.config?.role });
        }
      });
    };
    subscribe('fastify.initialization', collect);
    try {
      t = await createTestApp();
    } finally {
      unsubscribe('fastify.initialization', collect);
    }
    const res = await t.request({ method: 'GET', url: '/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    doc = res.json();
  });
  afterAll(() => t.close());

  /**
   * Under /v1 but described elsewhere: the document itself, and the MCP endpoint, which speaks
   * MCP's JSON-RPC (its specification is the contract; docs/reference/endpoints.md points to it,
   * test/mcp-server.test.ts holds it).
   */
  const OUTSIDE_THE_DOCUMENT = ['/v1/openapi.json', '/v1/mcp'];
  /** What the document must cover: every route under /v1 but those, plus the operations routes. */
  const contractRoutes = () =>
    served.filter(
      (r) => r.method !== 'HEAD' && ((r.url.startsWith('/v1/') && !OUTSIDE_THE_DOCUMENT.includes(r.url)) || OPERATIONS_OUTSIDE_V1.includes(r.url)),
    );

  it('is OpenAPI 3.1 with a bearer security scheme', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.components.securitySchemes?.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.schemas.Problem).toBeDefined();
  });

  it('documents every route the app serves under /v1 and the operations routes, and nothing else', () => {
    const routes = contractRoutes();
    // The collection works: these are certainly served (a silent hook would make the test vacuous).
    const keys = routes.map((r) => `${r.method} ${r.url}`);
    for (const known of ['POST /v1/auth/login', 'GET /v1/users/me', 'DELETE /v1/sessions/:id', 'GET /healthz', 'GET /readyz', 'GET /metrics']) {
      expect(keys).toContain(known);
    }
    expect(missingFromDocument(routes, doc)).toEqual([]);

    // ...and the comparison notices a route the document lacks.
    const withoutMe = structuredClone(doc);
    delete withoutMe.paths['/v1/users/me'];
    expect(missingFromDocument(routes, withoutMe).sort()).toEqual(['DELETE /v1/users/me', 'GET /v1/users/me', 'PATCH /v1/users/me']);

    // No documented operation that the app does not serve.
    const servedKeys = new Set(routes.map((r) => `${r.method} ${toOpenApiPath(r.url)}`));
    expect(operationsOf(doc).map((o) => o.key).filter((k) => !servedKeys.has(k))).toEqual([]);
  });

  it('gives every operation a unique operationId, a summary, a 2xx and problem+json errors', () => {
    const ops = operationsOf(doc);
    expect(ops.length).toBeGreaterThanOrEqual(contractRoutes().length);
    const ids = ops.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);

    for (const { key, op } of ops) {
      expect(op.operationId, key).toMatch(/^[A-Za-z][A-Za-z0-9]*$/);
      expect(op.summary?.trim(), key).toBeTruthy();
      const statuses = Object.keys(op.responses);
      // The browser steps of a provider sign-in answer only with a redirect (302).
      expect(statuses.some((s) => /^2/.test(s)) || statuses.includes('302'), `${key} has a 2xx response`).toBe(true);

      // Every documented error is a Problem sent as application/problem+json; on a page a browser
      // navigates to (x-gatehouse-browser-page), also as an HTML page for a request asking for one.
      const errors = statuses.filter((s) => /^[45]/.test(s));
      for (const status of errors) {
        const { 'text/html': page, ...content } = (op.responses[status]!.content ?? {}) as Record<string, unknown>;
        expect(content, `${key} ${status}`).toEqual({ [PROBLEM_MEDIA_TYPE]: { schema: { $ref: PROBLEM_REF } } });
        expect(page !== undefined, `${key} ${status}: text/html only on browser pages`).toBe((op as unknown as Record<string, unknown>)['x-gatehouse-browser-page'] === true);
        expect(op.responses[status]!.description, `${key} ${status}`).toBeTruthy();
      }
      const clientErrors = errors.filter((s) => /^4/.test(s));
      if (NO_CLIENT_ERRORS.has(key)) {
        // The exemption only holds while the operation takes no input and needs no credential.
        expect(op.parameters ?? [], key).toEqual([]);
        expect(op.requestBody, key).toBeUndefined();
        expect(op.security, key).toEqual([]);
      } else {
        expect(clientErrors.length, `${key} documents at least one 4xx problem`).toBeGreaterThan(0);
      }
    }
  });

  it('has a relative server URL, so "Try it out" works on whatever host name the page was opened', () => {
    expect((doc as unknown as { servers: { url: string }[] }).servers).toEqual([{ url: '/', description: 'This instance' }]);
  });

  it('declares X-Request-Id on every response, and single enums instead of anyOf of constants', () => {
    for (const { key, op } of operationsOf(doc)) {
      for (const [status, response] of Object.entries(op.responses)) expect(response.headers?.['X-Request-Id']?.required, `${key} ${status}`).toBe(true);
    }
    const text = JSON.stringify(doc);
    expect(text).not.toMatch(/"anyOf":\[\{"const"/);
    expect(text).not.toMatch(/"anyOf":\[\{"type":"string","const"/);
  });

  it('declares bearerAuth exactly on the operations the server protects', async () => {
    const byKey = new Map(contractRoutes().map((r) => [`${r.method} ${toOpenApiPath(r.url)}`, r]));
    const protectedOps = operationsOf(doc).filter((o) => byKey.get(o.key)?.auth);
    expect(protectedOps.map((o) => o.key)).toEqual(expect.arrayContaining(['GET /v1/users/me', 'GET /v1/sessions', 'POST /v1/auth/logout', 'GET /v1/agents']));

    for (const { key, method, path, op } of operationsOf(doc)) {
      const route = byKey.get(key);
      const isProtected = Boolean(route?.auth);
      if (isProtected) {
        const requirement = route!.auth!;
        const scoped = !['session', 'admin', 'any'].includes(requirement);
        expect(op.security, key).toEqual([{ bearerAuth: scoped ? [requirement] : [] }]);
        const spends = route!.budget === undefined;
        expect(op['x-gatehouse-auth'], key).toEqual({
          requires: requirement, api_keys: scoped || requirement === 'any', spends_budget: spends, step_up: route!.stepUp ?? 'never',
          ...(route!.key ? { key: route!.key } : {}), ...(route!.role || (scoped && !requirement.startsWith('credentials:')) ? { role: route!.role ?? roleForScope(requirement) } : {}),
        });
        const callerFree = route!.budget === 'caller-free';
        expect(op.description, key).toContain(spends ? 'Spends one request' : callerFree ? "Spends nothing of the caller's budget" : 'Spends no request budget');
        expect(op.description, key).toContain(scoped ? `\`${requirement}\` scope` : requirement === 'any' ? 'any valid credential' : 'session_required');
        // A route that spends nothing of its caller's has no 429 of its own.
        expect(Object.keys(op.responses), key).toEqual(expect.arrayContaining(callerFree ? ['401', '403'] : ['401', '403', '429']));
        expect(Object.keys(op.responses).includes('429'), key).toBe(!callerFree);
        expect(op.responses['401']!.headers?.['WWW-Authenticate']?.required, key).toBe(true);
        if (!callerFree) expect(op.responses['429']!.headers?.['Retry-After']?.required, key).toBe(true);
        const success = Object.keys(op.responses).find((s) => s.startsWith('2'))!;
        expect(Boolean(op.responses[success]!.headers?.RateLimit), `${key}: RateLimit on ${success}`).toBe(spends);
      } else if (OPTIONAL_CREDENTIAL.has(key)) {
        // Public, but a session changes what it may do: none, or an access token.
        expect(op.security, key).toEqual([{}, { bearerAuth: [] }]);
        expect(op.description, key).toContain('authentication_required');
        expect(op.responses['401']!.headers?.['WWW-Authenticate']?.required, key).toBe(false);
      } else if (OPTIONAL_GUEST_CREDENTIAL.has(key)) {
        expect(op.security, key).toEqual([{}, { bearerAuth: [] }]);
        expect(op.description, key).toContain("a guest's access token");
      } else {
        // Public, stated explicitly rather than left undefined.
        expect(op.security, key).toEqual([]);
      }

      // What the document says is what the server does: no credential → 401 exactly when protected.
      const url = path.replace(/\{[^}]+\}/g, 'x');
      const res = await t.request({ method: method as 'GET', url });
      if (isProtected) {
        expect(res.statusCode, `${key} without a credential`).toBe(401);
        expect(res.headers['www-authenticate'], key).toMatch(/^Bearer /);
        expect(res.headers['content-type'], key).toMatch(/^application\/problem\+json/);
      } else {
        expect([401, 403], `${key} without a credential answered ${res.statusCode}`).not.toContain(res.statusCode);
      }
    }
  });

  it('describes the bodies the server really sends', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    (addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
    ajv.addSchema(doc as object, 'openapi.json');
    const check = (schema: string, body: unknown) => {
      const validate = ajv.getSchema(`openapi.json#/components/schemas/${schema}`);
      if (!validate) throw new Error(`no schema ${schema}`);
      expect(validate(body) ? [] : validate.errors, `${schema}: ${JSON.stringify(body)}`).toEqual([]);
    };

    const user = await t.signUp();
    const me = await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(user.tokens.access_token) });
    expect(me.statusCode).toBe(200);
    check('Me', me.json());
    check('TokenResponse', user.tokens);
    const jwks = await t.request({ method: 'GET', url: '/v1/.well-known/jwks.json' });
    check('Jwks', jwks.json());

    const problems = [
      await t.request({ method: 'GET', url: '/v1/no-such-thing' }),
      await t.request({ method: 'GET', url: '/v1/users/me' }),
      await t.request({ method: 'POST', url: '/v1/auth/register', payload: { email: 'not-an-email' } }),
    ];
    expect(problems.map((p) => p.statusCode)).toEqual([404, 401, 400]);
    for (const p of problems) {
      expect(p.headers['content-type']).toMatch(/^application\/problem\+json/);
      check('Problem', p.json());
    }
    expect(problems[2]!.json().errors.length).toBeGreaterThan(0);
  });

  it('passes redocly lint with no errors', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(doc, null, 2));
      const result = await redoclyLint(file);
      if (result.warnings.length) console.warn(`redocly lint: ${result.warnings.length} warning(s)\n  ${result.warnings.join('\n  ')}`);
      expect(result.errors).toEqual([]);
      expect(result.totals.errors).toBe(0);
      expect(result.code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('serves the Swagger UI at /docs on the same document', async () => {
    const page = await t.request({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('<title>Swagger UI</title>');
    expect(page.body).toMatch(/swagger-ui-bundle\.js/);

    const bundle = await t.request({ method: 'GET', url: '/docs/static/swagger-ui-bundle.js' });
    expect(bundle.statusCode).toBe(200);
    expect(bundle.headers['content-type']).toMatch(/javascript/);
    const init = await t.request({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(init.body).toContain("resolveUrl('./json')");
    const json = await t.request({ method: 'GET', url: '/docs/json' });
    expect(json.statusCode).toBe(200);
    expect(json.json()).toEqual(doc);
  });

  it('lists every error code at /docs/errors, where problem type URIs point', async () => {
    const page = await t.request({ method: 'GET', url: '/docs/errors' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    for (const [code, { status, title }] of Object.entries(ERROR_CATALOGUE)) {
      const row = new RegExp(`<tr id="${code}">(.*?)</tr>`).exec(page.body);
      expect(row, `row for ${code}`).not.toBeNull();
      expect(row![1]).toContain(`<code>${code}</code>`);
      expect(row![1]).toContain(`<td>${status}</td>`);
      expect(row![1]).toContain(title);
    }
    // A real problem's `type` is a link to its row.
    const problem = (await t.request({ method: 'GET', url: '/v1/users/me' })).json();
    const type = new URL(problem.type);
    expect(type.pathname).toBe('/docs/errors');
    expect(page.body).toContain(`id="${type.hash.slice(1)}"`);
  });
});
