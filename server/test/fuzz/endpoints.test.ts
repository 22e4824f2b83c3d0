import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { dialect } from '../harness.js';
import { FUZZ_RUNS, fuzzParameters } from './fuzz-settings.js';
import { createFuzzWorld } from './fuzz-world.js';
import { openApiDocument, operationsOf, schemaResolver } from './openapi-operations.js';
import { describeRequest, fuzzRequest, leavesTemplate, toInjectOptions } from './request-builder.js';
import { contractViolations, SlowestRequests } from './response-oracle.js';
import { send } from './send.js';
import { StatusTally } from './status-tally.js';

/**
 * Property 1: every operation in the app's own OpenAPI document, fed random and schema-shaped
 * but mutated bodies, query strings, path parameters and headers, answers within the time bound
 * with a documented status, never a 5xx, and every error is problem+json with a catalogue code.
 */
const world = await createFuzzWorld();
const doc = openApiDocument(world.t.app);
const resolve = schemaResolver(doc);
const operations = operationsOf(doc);
const slowest = new SlowestRequests(8);
const tally = new StatusTally();

afterAll(async () => {
  console.log(`${slowest.report(`endpoint fuzz (${dialect})`)}\nstatuses seen:\n${tally.report()}`);
  await world.close();
});

const NEEDS_A_SECRET_FROM_ELSEWHERE = new Set([
  'GET /v1/auth/oidc/{provider}/callback', 'POST /v1/auth/oidc/{provider}/callback', 'POST /v1/auth/oidc/token', 'POST /v1/users/me/identities',
  'POST /v1/auth/id-token', 'POST /v1/auth/passwordless/verify',
  // Only a guest's session upgrades; the fuzzer's credentials are an ordinary account's (test/routes/guests.test.ts does).
  'POST /v1/users/me/upgrade',
]);

describe(`every documented operation under random input (${dialect})`, () => {
  it('finds the operations in the OpenAPI document', () => {
    // The routes table is the source: a broken document must not make this suite vacuous.
    expect(operations.length).toBeGreaterThan(30);
    expect(operations.map((o) => o.key)).toEqual(expect.arrayContaining(['POST /v1/auth/login', 'GET /v1/agents/{id}', 'POST /v1/chats/{id}/messages']));
  });

  for (const op of operations) {
    it(op.key, async () => {
      await fc.assert(
        fc.asyncProperty(fuzzRequest(op, resolve), async (req) => {
          const options = toInjectOptions(world, op, req);
          const started = performance.now();
          // send(), not inject alone: a request that opens a live stream must not wait for its end.
          const res = await send(world.t, options);
          const elapsed = performance.now() - started;
          slowest.note(elapsed, `${res.statusCode} ${op.key} ${String(options.url).slice(0, 80)}`);
          tally.note(op.key, res.statusCode);
          const problems = contractViolations(op, res, elapsed, leavesTemplate(options) ? [404, 405] : []);
          // A success may have revoked our credentials or deleted a fixture; a 401 with a credential we hold, too.
          const mutated = res.statusCode < 300 && op.method !== 'GET';
          if (mutated || (res.statusCode === 401 && (req.credential === 'access_token' || req.credential === 'api_key'))) await world.repair();
          if (problems.length > 0) {
            throw new Error(`${problems.join('; ')}\n  request: ${describeRequest(options)}\n  answer: ${res.statusCode} ${res.body.slice(0, 500)}`);
          }
        }),
        fuzzParameters(),
      );
    });
  }

  it.skipIf(FUZZ_RUNS < 20)('got past authentication on every protected operation and to a 2xx on most', () => {
    const protectedOps = operations.filter((o) => o.requiresCredential);
    for (const op of protectedOps) expect(tally.statuses(op.key).some((s) => s !== 401), `${op.key} only ever answered 401`).toBe(true);
    // A provider sign-in's later steps redeem a secret that only a provider's answer carries, an ID
    // token only a provider signs, a sign-in code only a mail carries: random input cannot reach
    // their success (test/routes/identities.test.ts, id-token.test.ts, passwordless.test.ts and the
    // conformance suite do).
    const reachable = operations.filter((o) => !NEEDS_A_SECRET_FROM_ELSEWHERE.has(o.key));
    // A redirect is the success of a browser step (authorize).
    const succeeded = reachable.filter((o) => tally.statuses(o.key).some((s) => s < 400 && s !== 304));
    expect(succeeded.length, `2xx seen on: ${succeeded.map((o) => o.key).join(', ')}`).toBeGreaterThan(reachable.length * 0.6);
  });
});
