import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../harness.js';

// A stolen access token must not let its holder guess the password at the account's request rate:
// wrong current passwords (password change, account deletion) count like failed logins.
describe('guessing the current password with a stolen access token', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { LOGIN_MAX_FAILURES: '3' } });
  });
  afterAll(async () => t?.close());

  it('is cut off after LOGIN_MAX_FAILURES wrong guesses across both endpoints, even for the right password, until the window passes', async () => {
    const user = await t.signUp();
    const headers = bearer(user.tokens.access_token);
    const change = (current: string) => t.request({ method: 'POST', url: '/v1/users/me/password', headers, payload: { current_password: current, new_password: 'Brand-New-Secret-77' } });
    expect((await change('Wrong-Guess-0001')).statusCode).toBe(400);
    expect((await change('Wrong-Guess-0002')).statusCode).toBe(400);
    const deletion = await t.request({ method: 'DELETE', url: '/v1/users/me', headers, payload: { password: 'Wrong-Guess-0003' } });
    expect(deletion.statusCode).toBe(400);

    const blocked = await change(user.password);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().code).toBe('too_many_attempts');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    const stillThere = await t.request({ method: 'DELETE', url: '/v1/users/me', headers, payload: { password: user.password } });
    expect(stillThere.statusCode).toBe(429);

    t.clock.advance(16 * 60_000); // past the window (and the access token's 15 minutes: log in again)
    const fresh = await t.login(user.email, user.password);
    const ok = await t.request({ method: 'POST', url: '/v1/users/me/password', headers: bearer(fresh.access_token), payload: { current_password: user.password, new_password: 'Brand-New-Secret-77' } });
    expect(ok.statusCode, ok.body).toBe(204);
  });

  it('checks at most LOGIN_MAX_FAILURES of 24 concurrent wrong guesses, then refuses the right password', async () => {
    const user = await t.signUp();
    const headers = bearer(user.tokens.access_token);
    let checks = 0;
    const verify = t.deps.hasher.verify;
    t.deps.hasher.verify = (hash, password) => (checks++, verify.call(t.deps.hasher, hash, password));
    try {
      const burst = await Promise.all(Array.from({ length: 24 }, (_, i) =>
        t.request({ method: 'POST', url: '/v1/users/me/password', headers, payload: { current_password: `Wrong-Guess-${1000 + i}`, new_password: 'Brand-New-Secret-77' } })));
      expect(checks).toBe(3);
      expect(burst.filter((r) => r.statusCode === 400)).toHaveLength(3);
      expect(burst.filter((r) => r.statusCode === 429).map((r) => r.json().code)).toEqual(Array(21).fill('too_many_attempts'));
    } finally {
      t.deps.hasher.verify = verify;
    }
    const right = await t.request({ method: 'POST', url: '/v1/users/me/password', headers, payload: { current_password: user.password, new_password: 'Brand-New-Secret-77' } });
    expect(right.statusCode).toBe(429);
    // The password did not change.
    t.clock.advance(16 * 60_000);
    await t.login(user.email, user.password);
  });
});

