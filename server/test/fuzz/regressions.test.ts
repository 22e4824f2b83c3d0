import type { InjectOptions } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { dialect } from '../harness.js';
import { createFuzzWorld } from './fuzz-world.js';
import { openApiDocument, operationsOf } from './openapi-operations.js';
import { contractViolations } from './response-oracle.js';

/**
 * The counterexamples the properties found, replayed on every run (random search may not draw
 * them again). Each must now meet the contract and get the status named here.
 */
const world = await createFuzzWorld();
const operations = operationsOf(openApiDocument(world.t.app));
afterAll(() => world.close());

const deepArray = '['.repeat(200_000) + ']'.repeat(200_000);

async function expectAnswer(key: string, options: (ids: Readonly<Record<string, string>>, token: string) => InjectOptions, status: number, code?: string) {
  const op = operations.find((o) => o.key === key)!;
  const res = await world.t.request(options(world.liveIds(), world.accessToken()));
  expect(contractViolations(op, res, 0), res.body.slice(0, 300)).toEqual([]);
  expect(res.statusCode, res.body.slice(0, 300)).toBe(status);
  if (code) expect(res.json().code).toBe(code);
  return res;
}

describe(`counterexamples found by fuzzing stay fixed (${dialect})`, () => {
  it('POST /auth/login and /auth/refresh without any body: 400, not a 500', async () => {
    await expectAnswer('POST /v1/auth/login', () => ({ method: 'POST', url: '/v1/auth/login' }), 400, 'validation_failed');
    await expectAnswer('POST /v1/auth/refresh', () => ({ method: 'POST', url: '/v1/auth/refresh' }), 400, 'validation_failed');
  });

  it('a 200,000-deep JSON body with an Idempotency-Key on a body-less route: no stack overflow', async () => {
    const options = (ids: Readonly<Record<string, string>>, token: string): InjectOptions => ({
      method: 'POST', url: `/v1/webhooks/${ids.webhooks}/test`, payload: deepArray,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': `deep-${Date.now()}` },
    });
    await expectAnswer('POST /v1/webhooks/{id}/test', options, 202);
  });

  it('admin limits above the 32-bit column: 400, not a PostgreSQL overflow', async () => {
    const body = { limits: { per_minute: 1, per_day: 2_147_483_648 } };
    await expectAnswer('PATCH /v1/admin/users/{id}', (ids, token) => ({ method: 'PATCH', url: `/v1/admin/users/${ids.users}`, payload: body, headers: { authorization: `Bearer ${token}` } }), 400, 'validation_failed');
  });

  it('NUL in a query, a login name or an agent description: 400 validation_failed, not a PostgreSQL error', async () => {
    await expectAnswer('GET /v1/admin/users', (_, token) => ({ method: 'GET', url: '/v1/admin/users?email=%00', headers: { authorization: `Bearer ${token}` } }), 400, 'validation_failed');
    await expectAnswer('POST /v1/auth/login', () => ({ method: 'POST', url: '/v1/auth/login', payload: 'username=%00&password=%00', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 400, 'validation_failed');
    await expectAnswer('POST /v1/agents', (_, token) => ({ method: 'POST', url: '/v1/agents', payload: { name: 'a', model: 'm', description: '\u0000' }, headers: { authorization: `Bearer ${token}` } }), 400, 'validation_failed');
  });

  it('a replayed idempotent error is still problem+json', async () => {
    const options = (_: unknown, token: string): InjectOptions => ({ method: 'POST', url: '/v1/webhooks/whk_01m00000000000000000000000/test', headers: { authorization: `Bearer ${token}`, 'idempotency-key': 'replayed-404' } });
    await expectAnswer('POST /v1/webhooks/{id}/test', options, 404, 'not_found');
    const replay = await expectAnswer('POST /v1/webhooks/{id}/test', options, 404, 'not_found');
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it('framework answers are documented: a broken body on DELETE, broken percent-encoding in a path', async () => {
    const auth = (token: string) => ({ authorization: `Bearer ${token}` });
    await expectAnswer('DELETE /v1/agents/{id}', (ids, token) => ({ method: 'DELETE', url: `/v1/agents/${ids.agents}`, payload: '{', headers: { ...auth(token), 'content-type': 'application/json' } }), 400, 'malformed_json');
    await expectAnswer('DELETE /v1/agents/{id}', (ids, token) => ({ method: 'DELETE', url: `/v1/agents/${ids.agents}`, payload: 'x', headers: { ...auth(token), 'content-type': 'text/plain' } }), 415, 'unsupported_media_type');
    await expectAnswer('GET /v1/chats/{id}', (_, token) => ({ method: 'GET', url: '/v1/chats/%ED%A0%80', headers: auth(token) }), 400, 'invalid_request');
    await expectAnswer('GET /v1/webhooks/{id}', (_, token) => ({ method: 'GET', url: `/v1/webhooks/${'a'.repeat(100)}`, headers: auth(token) }), 400, 'validation_failed');
  });
});
