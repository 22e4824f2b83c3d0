import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HASH_SLOTS, MAX_WAITING_HASHES } from '../../src/identity/passwords/password-hasher.js';
import { createTestApp, STRONG_PASSWORD, uniqueEmail, type TestApp } from '../harness.js';

// Argon2 work is gated (one hash per core but one) so a sign-up or login storm cannot starve the
// event loop; past the queue bound the surplus is shed with 503 + Retry-After, never a 500.
describe('password hashing under a storm', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('admits what the gate can queue, sheds the rest with 503 service_unavailable, and loses nothing it acknowledged', async () => {
    const capacity = HASH_SLOTS + HASH_SLOTS * MAX_WAITING_HASHES;
    const emails = Array.from({ length: capacity + 30 }, () => uniqueEmail());
    const answers = await Promise.all(emails.map((email) => t.request({ method: 'POST', url: '/v1/auth/register', payload: { email, password: STRONG_PASSWORD, name: 'Storm' } })));
    const created = answers.filter((r) => r.statusCode === 201);
    const shed = answers.filter((r) => r.statusCode === 503);
    expect(created.length + shed.length).toBe(answers.length);
    expect(created.length).toBeGreaterThanOrEqual(capacity);
    expect(shed.length).toBeGreaterThan(0);
    expect(shed[0]!.headers['retry-after']).toBe('1');
    expect(shed[0]!.headers['content-type']).toContain('application/problem+json');
    expect(shed[0]!.json().code).toBe('service_unavailable');
    // A refused sign-up left no account behind; an acknowledged one can log in.
    const refusedEmail = emails[answers.findIndex((r) => r.statusCode === 503)]!;
    const retry = await t.request({ method: 'POST', url: '/v1/auth/register', payload: { email: refusedEmail, password: STRONG_PASSWORD, name: 'Storm' } });
    expect(retry.statusCode).toBe(201);
    const acknowledged = emails[answers.findIndex((r) => r.statusCode === 201)]!;
    await t.login(acknowledged, STRONG_PASSWORD);
  });
});
