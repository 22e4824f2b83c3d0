import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, STRONG_PASSWORD, uniqueEmail, type TestApp } from '../harness.js';

const REQUEST_ID = /^req_[0-9a-hjkmnp-tv-z]{26}$/;

interface FieldErrorLike {
  field: string;
  code: string;
  message: string;
}

/** Every error answer: problem+json, documented status and code, type URI, request_id = header. */
function expectProblem(res: LightMyRequestResponse, status: number, code: string) {
  expect({ status: res.statusCode, body: res.body }).toMatchObject({ status });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json();
  expect(body).toMatchObject({
    type: `http://gatehouse.test/docs/errors#${code}`,
    title: expect.any(String),
    status,
    detail: expect.any(String),
    code,
  });
  const header = res.headers['x-request-id'];
  expect(typeof header).toBe('string');
  expect(body.request_id).toBe(header);
  return body as { code: string; errors?: FieldErrorLike[]; [k: string]: unknown };
}

/** A 400 validation_failed whose errors[] contains at least these (field, code) pairs. */
function expectFieldErrors(res: LightMyRequestResponse, expected: Array<{ field: string; code: string }>) {
  const body = expectProblem(res, 400, 'validation_failed');
  expect(Array.isArray(body.errors)).toBe(true);
  for (const e of body.errors!) expect(e).toEqual({ field: expect.any(String), code: expect.any(String), message: expect.any(String) });
  expect(body.errors).toEqual(expect.arrayContaining(expected.map((e) => expect.objectContaining(e))));
  return body.errors!;
}

describe(`input validation and problem details (${dialect})`, () => {
  let t: TestApp;
  const register = (payload: InjectOptions['payload'], headers: Record<string, string> = {}) =>
    t.request({ method: 'POST', url: '/v1/auth/register', payload, headers });
  const valid = () => ({ email: uniqueEmail(), password: STRONG_PASSWORD, name: 'Valid Name' });

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  describe('body parsing', () => {
    it('answers 400 malformed_json for broken JSON', async () => {
      for (const payload of ['{"email": "a@b.co", ', '{email: "a@b.co"}', "{'a': 1}", '{"a": 1}}', 'nul']) {
        const res = await register(payload, { 'content-type': 'application/json' });
        expectProblem(res, 400, 'malformed_json');
        expect(res.json().errors).toBeUndefined();
      }
    });

    it('answers 400 malformed_json for an empty body sent as JSON', async () => {
      const res = await register('', { 'content-type': 'application/json' });
      expectProblem(res, 400, 'malformed_json');
    });

    it('refuses JSON that is valid but not an object', async () => {
      for (const payload of ['null', '[]', '"text"', '42']) {
        const res = await register(payload, { 'content-type': 'application/json' });
        expectProblem(res, 400, 'validation_failed');
      }
    });

    it('refuses a __proto__ / constructor.prototype pollution attempt without polluting anything', async () => {
      const attempts = [
        `{"email":"${uniqueEmail()}","password":"${STRONG_PASSWORD}","name":"Proto","__proto__":{"polluted":"yes","isAdmin":true}}`,
        `{"email":"${uniqueEmail()}","password":"${STRONG_PASSWORD}","name":"Ctor","constructor":{"prototype":{"polluted":"yes"}}}`,
      ];
      for (const payload of attempts) {
        const res = await register(payload, { 'content-type': 'application/json' });
        expect(res.statusCode).toBe(400);
        const body = expectProblem(res, 400, res.json().code);
        expect(['malformed_json', 'validation_failed']).toContain(body.code);
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    });

    it('answers 415 unsupported_media_type for anything but JSON', async () => {
      const body = JSON.stringify(valid());
      const cases: Array<Record<string, string>> = [
        { 'content-type': 'text/plain' },
        { 'content-type': 'text/plain; charset=utf-8' },
        { 'content-type': 'multipart/form-data; boundary=xyz' },
        { 'content-type': 'application/xml' },
        { 'content-type': 'application/x-www-form-urlencoded' },
      ];
      for (const headers of cases) {
        const res = await register(headers['content-type']!.startsWith('multipart') ? `--xyz\r\nContent-Disposition: form-data; name="email"\r\n\r\na@b.co\r\n--xyz--\r\n` : body, headers);
        expectProblem(res, 415, 'unsupported_media_type');
      }
    });

    it('answers 415 for a body sent without any Content-Type', async () => {
      const res = await register(JSON.stringify(valid()));
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expectProblem(res, 415, 'unsupported_media_type');
    });

    it('accepts application/json with a charset parameter', async () => {
      const input = valid();
      const res = await register(JSON.stringify(input), { 'content-type': 'application/json; charset=utf-8' });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ email: input.email, name: input.name });
    });

    it('answers 413 payload_too_large over MAX_BODY_BYTES and still takes a body under it', async () => {
      const small = await createTestApp({ env: { MAX_BODY_BYTES: '2048' } });
      try {
        const big = JSON.stringify({ ...valid(), name: 'x'.repeat(3000) });
        expect(Buffer.byteLength(big)).toBeGreaterThan(3000);
        const res = await small.request({ method: 'POST', url: '/v1/auth/register', headers: { 'content-type': 'application/json' }, payload: big });
        expectProblem(res, 413, 'payload_too_large');

        const ok = await small.request({ method: 'POST', url: '/v1/auth/register', payload: valid() });
        expect(ok.statusCode, ok.body).toBe(201);
      } finally {
        await small.close();
      }
    });
  });

  describe('POST /v1/auth/register fields', () => {
    it('reports an unknown field as unknown_field at its pointer', async () => {
      const res = await register({ ...valid(), role: 'admin' });
      const errors = expectFieldErrors(res, [{ field: '/role', code: 'unknown_field' }]);
      expect(errors).toHaveLength(1);
    });

    it('rejects wrong types instead of coercing them', async () => {
      const cases: Array<[string, unknown]> = [
        ['name', 123],
        ['name', true],
        ['name', null],
        ['name', ['Ada']],
        ['name', { first: 'Ada' }],
        ['email', 42],
        ['password', 1234567890123],
      ];
      for (const [field, value] of cases) {
        const res = await register({ ...valid(), [field]: value });
        const errors = expectFieldErrors(res, [{ field: `/${field}`, code: 'invalid_type' }]);
        expect(errors.every((e) => e.field === `/${field}`)).toBe(true);
      }
    });

    it('reports each missing field as required', async () => {
      const { email, password, name } = valid();
      expectFieldErrors(await register({ password, name }), [{ field: '/email', code: 'required' }]);
      expectFieldErrors(await register({ email, name }), [{ field: '/password', code: 'required' }]);
      expectFieldErrors(await register({ email, password }), [{ field: '/name', code: 'required' }]);
      const errors = expectFieldErrors(await register({}), [
        { field: '/email', code: 'required' },
        { field: '/password', code: 'required' },
        { field: '/name', code: 'required' },
      ]);
      expect(errors).toHaveLength(3);
    });

    it('refuses malformed email addresses', async () => {
      const bad = ['plainaddress', 'no-at.example.com', '@example.com', 'user@', 'user@@example.com', 'a@b@example.com', 'has space@example.com', 'user@exa mple.com', 'user@example.com\n', ' user@example.com', 'user@-example.com', ''];
      for (const email of bad) {
        const res = await register({ ...valid(), email });
        const errors = expectFieldErrors(res, []);
        expect(errors.some((e) => e.field === '/email'), `${JSON.stringify(email)} → ${res.body}`).toBe(true);
        expect(errors.every((e) => e.field === '/email')).toBe(true);
      }
    });

    it('refuses an email longer than 254 characters and takes one of exactly 254', async () => {
      const domain = '@example.com';
      const long = `${'a'.repeat(255 - domain.length)}${domain}`;
      expect(long).toHaveLength(255);
      expectFieldErrors(await register({ ...valid(), email: long }), [{ field: '/email', code: 'too_long' }]);

      // 254 = a 64-char local part and a long (valid) multi-label domain.
      const labels = `${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(50)}.com`;
      const exact = `${'a'.repeat(254 - 1 - labels.length)}@${labels}`;
      expect(exact).toHaveLength(254);
      const ok = await register({ ...valid(), email: exact });
      expect(ok.statusCode, ok.body).toBe(201);
      expect(ok.json().email).toBe(exact);
    });

    it('enforces the password length in characters: 7 too_short, 129 too_long, 8 and 128 accepted', async () => {
      expectFieldErrors(await register({ ...valid(), password: 'Abc-12x' }), [{ field: '/password', code: 'too_short' }]);
      const tooLong = 'Zq7-'.repeat(32) + 'k';
      expect(tooLong).toHaveLength(129);
      expectFieldErrors(await register({ ...valid(), password: tooLong }), [{ field: '/password', code: 'too_long' }]);

      for (const password of ['Xv9-qk2L', 'Zq7-'.repeat(32)]) {
        const res = await register({ ...valid(), password });
        expect(res.statusCode, `${password.length}: ${res.body}`).toBe(201);
      }
    });

    it('counts password length in code points, not UTF-16 units', async () => {
      // 7 emoji are 14 UTF-16 units but 7 characters: too short.
      expectFieldErrors(await register({ ...valid(), password: '🦦🌲🪨🔥🌊🎻🧭' }), [{ field: '/password', code: 'too_short' }]);
      // 128 emoji are 256 UTF-16 units but 128 characters: accepted.
      const emoji = ['🦦', '🌲', '🪨', '🔥'];
      const ok = await register({ ...valid(), password: Array.from({ length: 128 }, (_, i) => emoji[i % 4]).join('') });
      expect(ok.statusCode, ok.body).toBe(201);
    });

    it('refuses common passwords, whatever their letter case', async () => {
      for (const password of ['password1', 'qwertyuiop', 'Password123', 'PASSWORD1', 'QwErTyUiOp', 'iloveyou1']) {
        const res = await register({ ...valid(), password });
        const errors = expectFieldErrors(res, [{ field: '/password', code: 'password_too_common' }]);
        expect(errors).toHaveLength(1);
      }
    });

    it('refuses names with control characters', async () => {
      for (const name of ['Ada\u0000Lovelace', 'Ada\nLovelace', 'Ada\r\nLovelace', 'Ada\u0007', '\u009b31mAda', '\u001b[31mAda', 'Ada\tLovelace', 'Ada\u007f']) {
        const res = await register({ ...valid(), name });
        const errors = expectFieldErrors(res, []);
        expect(errors.map((e) => e.field), `${JSON.stringify(name)} → ${res.body}`).toEqual(['/name']);
      }
    });

    it('refuses empty and whitespace-only names', async () => {
      for (const name of ['', ' ', '     ', '\u3000\u00a0 ']) {
        const res = await register({ ...valid(), name });
        const errors = expectFieldErrors(res, [{ field: '/name', code: 'too_short' }]);
        expect(errors).toHaveLength(1);
      }
    });

    it('refuses a name of 101 characters and takes one of 100 (in characters, trimmed)', async () => {
      expectFieldErrors(await register({ ...valid(), name: 'n'.repeat(101) }), [{ field: '/name', code: 'too_long' }]);
      const ok = await register({ ...valid(), name: 'n'.repeat(100) });
      expect(ok.statusCode, ok.body).toBe(201);
      // 100 emoji are 200 UTF-16 units: still 100 characters.
      const emoji = await register({ ...valid(), name: '👋'.repeat(100) });
      expect(emoji.statusCode, emoji.body).toBe(201);
      expect(emoji.json().name).toBe('👋'.repeat(100));
      expectFieldErrors(await register({ ...valid(), name: '👋'.repeat(101) }), [{ field: '/name', code: 'too_long' }]);
    });

    it('round-trips emoji, right-to-left and combining characters byte for byte', async () => {
      for (const name of ['שלום 👋', 'مرحبا بالعالم', 'Zoe\u0308 Ålund', '👩🏽‍💻 Dev', '日本語の名前']) {
        const input = { ...valid(), name };
        const reg = await register(input);
        expect(reg.statusCode, reg.body).toBe(201);
        expect(Buffer.from(reg.json().name, 'utf8').equals(Buffer.from(name, 'utf8'))).toBe(true);
        expect(reg.rawPayload.includes(Buffer.from(JSON.stringify(name).slice(1, -1), 'utf8'))).toBe(true);

        const tokens = await t.login(input.email, input.password);
        const me = await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(tokens.access_token) });
        expect(me.statusCode).toBe(200);
        expect(me.json().name).toBe(name);
        expect(Buffer.from(me.json().name, 'utf8').equals(Buffer.from(name, 'utf8'))).toBe(true);
      }
    });

    it('lists every problem at once', async () => {
      const res = await register({ email: 'not-an-email', password: 'short', name: 123, nickname: 'x' });
      const errors = expectFieldErrors(res, [
        { field: '/email', code: 'invalid_format' },
        { field: '/password', code: 'too_short' },
        { field: '/name', code: 'invalid_type' },
        { field: '/nickname', code: 'unknown_field' },
      ]);
      expect(new Set(errors.map((e) => e.field))).toEqual(new Set(['/email', '/password', '/name', '/nickname']));
    });

    it('does not create an account when validation fails', async () => {
      const email = uniqueEmail();
      expect((await register({ email, password: 'password1', name: 'Nope' })).statusCode).toBe(400);
      const ok = await register({ email, password: STRONG_PASSWORD, name: 'Yes' });
      expect(ok.statusCode, ok.body).toBe(201);
    });
  });

  describe('fixed lists of values', () => {
    it('answers one field error for one value off a list (a single enum, not an anyOf of constants)', async () => {
      const { tokens } = await t.signUp();
      const headers = bearer(tokens.access_token);
      expectFieldErrors(await t.request({ method: 'POST', url: '/v1/api-keys', headers, payload: { name: 'k', scopes: ['agents:read', 'everything'] } }), [{ field: '/scopes/1', code: 'invalid_value' }]);
      const agent = (await t.request({ method: 'POST', url: '/v1/agents', headers, payload: { name: 'a', model: 'm' } })).json();
      const chat = (await t.request({ method: 'POST', url: '/v1/chats', headers, payload: { agent_id: agent.id } })).json();
      expectFieldErrors(await t.request({ method: 'POST', url: `/v1/chats/${chat.id}/messages`, headers, payload: { role: 'system', content: 'hi' } }), [{ field: '/role', code: 'invalid_value' }]);
    });
  });

  describe('account and login bodies', () => {
    it('PATCH /v1/users/me validates like register', async () => {
      const { tokens } = await t.signUp();
      const patch = (payload: InjectOptions['payload'], headers: Record<string, string> = {}) =>
        t.request({ method: 'PATCH', url: '/v1/users/me', payload, headers: { ...bearer(tokens.access_token), ...headers } });

      expectFieldErrors(await patch({ name: 'Ok', email: 'x@y.co' }), [{ field: '/email', code: 'unknown_field' }]);
      expectFieldErrors(await patch({ name: 42 }), [{ field: '/name', code: 'invalid_type' }]);
      expectFieldErrors(await patch({ name: null }), [{ field: '/name', code: 'invalid_type' }]);
      expectFieldErrors(await patch({ name: '   ' }), [{ field: '/name', code: 'too_short' }]);
      expectFieldErrors(await patch({ name: 'n'.repeat(101) }), [{ field: '/name', code: 'too_long' }]);
      for (const name of ['a\u0000b', 'a\nb', 'a\u0007', '\u009bx']) {
        expect((await patch({ name })).statusCode).toBe(400);
      }
      expectProblem(await patch('{"name": ', { 'content-type': 'application/json' }), 400, 'malformed_json');
      expectProblem(await patch('name=x', { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');

      const ok = await patch({ name: '  שלום 👋  ' });
      expect(ok.statusCode, ok.body).toBe(200);
      expect(ok.json().name).toBe('שלום 👋');
      const me = await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(tokens.access_token) });
      expect(me.json().name).toBe('שלום 👋');
    });

    it('POST /v1/users/me/password validates both fields', async () => {
      const { password, tokens } = await t.signUp();
      const change = (payload: InjectOptions['payload'], headers: Record<string, string> = {}) =>
        t.request({ method: 'POST', url: '/v1/users/me/password', payload, headers: { ...bearer(tokens.access_token), ...headers } });

      const missing = expectFieldErrors(await change({}), [
        { field: '/current_password', code: 'required' },
        { field: '/new_password', code: 'required' },
      ]);
      expect(missing).toHaveLength(2);
      expectFieldErrors(await change({ current_password: password, new_password: 'Abc-12x' }), [{ field: '/new_password', code: 'too_short' }]);
      expectFieldErrors(await change({ current_password: password, new_password: 'x'.repeat(129) }), [{ field: '/new_password', code: 'too_long' }]);
      expectFieldErrors(await change({ current_password: password, new_password: 'Password123' }), [{ field: '/new_password', code: 'password_too_common' }]);
      expectFieldErrors(await change({ current_password: password, new_password: 12345678 }), [{ field: '/new_password', code: 'invalid_type' }]);
      expectFieldErrors(await change({ current_password: password, new_password: 'Fresh-Maple-Lantern-7', extra: 1 }), [{ field: '/extra', code: 'unknown_field' }]);
      expectFieldErrors(await change({ current_password: 'wrong-password-here', new_password: 'Fresh-Maple-Lantern-7' }), [{ field: '/current_password', code: 'incorrect_password' }]);
      expectProblem(await change(`{"current_password": "${password}"`, { 'content-type': 'application/json' }), 400, 'malformed_json');
      expectProblem(await change(JSON.stringify({ current_password: password, new_password: 'Fresh-Maple-Lantern-7' }), { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');

      // None of the refusals changed anything: the original password still logs in.
      await expect(t.login((await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(tokens.access_token) })).json().email, password)).resolves.toBeDefined();
    });

    it('POST /v1/auth/login validates its body', async () => {
      const login = (payload: InjectOptions['payload'], headers: Record<string, string> = {}) =>
        t.request({ method: 'POST', url: '/v1/auth/login', payload, headers });

      const missing = expectFieldErrors(await login({}), [
        { field: '/username', code: 'required' },
        { field: '/password', code: 'required' },
      ]);
      expect(missing).toHaveLength(2);
      expectFieldErrors(await login({ username: 'a@b.co', password: 'x', remember_me: true }), [{ field: '/remember_me', code: 'unknown_field' }]);
      expectFieldErrors(await login({ username: 12345, password: 'x' }), [{ field: '/username', code: 'invalid_type' }]);
      expectFieldErrors(await login({ username: 'a@b.co', password: '' }), [{ field: '/password', code: 'too_short' }]);
      expectFieldErrors(await login({ username: 'a@b.co', password: 'x', grant_type: 'client_credentials' }), [{ field: '/grant_type', code: 'invalid_value' }]);
      expectProblem(await login('{"username":', { 'content-type': 'application/json' }), 400, 'malformed_json');
      expectProblem(await login('', { 'content-type': 'application/json' }), 400, 'malformed_json');
      expectProblem(await login('username=a', { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
      expectProblem(await login(JSON.stringify({ username: 'a@b.co', password: 'x' })), 415, 'unsupported_media_type');
      // The form grant is validated with the same rules.
      expectFieldErrors(
        await login('grant_type=password&username=a%40b.co&password=x&bogus=1', { 'content-type': 'application/x-www-form-urlencoded' }),
        [{ field: '/bogus', code: 'unknown_field' }],
      );
    });
  });

  describe('routing and request ids', () => {
    it('answers 404 not_found as a problem for unknown paths', async () => {
      for (const url of ['/nope', '/v2/anything', '/v2/users/me', '/v1/nope', '/v1/users/me/nope', '/v1']) {
        const res = await t.request({ method: 'GET', url });
        const body = expectProblem(res, 404, 'not_found');
        expect(body.detail).not.toMatch(/stack|at .*\.ts/);
      }
    });

    it('answers errors raised while routing as problems with a request id too', async () => {
      const { tokens } = await t.signUp();
      // Bad percent-encoding in the path: the router cannot even decode it.
      for (const url of ['/%zz', '/v1/sessions/%zz', '/v1/%E0%A4%A']) {
        const res = await t.request({ method: 'GET', url, headers: { 'x-request-id': 'bad-url-1' } });
        const body = expectProblem(res, 400, 'invalid_request');
        expect(body.request_id).toBe('bad-url-1');
        expect(res.body).not.toContain('FST_');
      }
      // A path parameter longer than any id: nothing by that name exists.
      const long = await t.request({ method: 'DELETE', url: `/v1/sessions/${'s'.repeat(300)}`, headers: bearer(tokens.access_token) });
      expectProblem(long, 404, 'not_found');
      expect(long.headers['x-request-id']).toMatch(REQUEST_ID);
      expect(long.body).not.toContain('s'.repeat(300));
    });

    it('answers 405 method_not_allowed with an Allow header for a known path', async () => {
      const { tokens } = await t.signUp();
      const res = await t.request({ method: 'PUT', url: '/v1/users/me', headers: bearer(tokens.access_token), payload: { name: 'x' } });
      expectProblem(res, 405, 'method_not_allowed');
      const allow = String(res.headers.allow).split(',').map((m) => m.trim()).sort();
      expect(allow).toEqual(expect.arrayContaining(['DELETE', 'GET', 'PATCH']));
      expect(allow).not.toContain('PUT');

      const anonymous = await t.request({ method: 'PUT', url: '/v1/users/me' });
      expectProblem(anonymous, 405, 'method_not_allowed');
      const get = await t.request({ method: 'GET', url: '/v1/auth/register' });
      expectProblem(get, 405, 'method_not_allowed');
      expect(String(get.headers.allow)).toContain('POST');
    });

    it('echoes a safe incoming X-Request-Id, in the header and in problem bodies', async () => {
      for (const id of ['abc-123', 'trace.id:42_x', 'a'.repeat(128)]) {
        const res = await t.request({ method: 'GET', url: '/nope', headers: { 'x-request-id': id } });
        expect(res.headers['x-request-id']).toBe(id);
        expect(res.json().request_id).toBe(id);
      }
    });

    it('replaces an unsafe or overlong X-Request-Id with a req_ id', async () => {
      for (const id of ['has spaces in it', 'a'.repeat(129), '<script>', 'x;drop table', 'ünïcode', '"quoted"']) {
        const res = await t.request({ method: 'GET', url: '/nope', headers: { 'x-request-id': id } });
        expect(res.headers['x-request-id']).not.toBe(id);
        expect(res.headers['x-request-id']).toMatch(REQUEST_ID);
        expect(res.json().request_id).toBe(res.headers['x-request-id']);
      }
    });

    it('mints a distinct req_ id per request when none is sent', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 5; i++) {
        const res = await t.request({ method: 'GET', url: '/nope' });
        expect(res.headers['x-request-id']).toMatch(REQUEST_ID);
        ids.add(String(res.headers['x-request-id']));
      }
      expect(ids.size).toBe(5);
    });

    it('puts X-Request-Id on every response: 200, 201, 204, 400, 401, 404, 405, 415', async () => {
      const { tokens } = await t.signUp();
      const responses = [
        await t.request({ method: 'GET', url: '/v1/.well-known/jwks.json' }),
        await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(tokens.access_token) }),
        await register(valid()),
        await register({}),
        await t.request({ method: 'GET', url: '/v1/users/me' }),
        await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer('not-a-token') }),
        await t.request({ method: 'GET', url: '/nope' }),
        await t.request({ method: 'PUT', url: '/v1/users/me' }),
        await register('x', { 'content-type': 'text/plain' }),
        await t.request({ method: 'POST', url: '/v1/auth/logout', headers: bearer(tokens.access_token) }),
      ];
      expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 201, 400, 401, 401, 404, 405, 415, 204]);
      for (const res of responses) expect(res.headers['x-request-id'], `${res.statusCode}`).toMatch(REQUEST_ID);

      const unauth = responses[4]!;
      expectProblem(unauth, 401, 'authentication_required');
      expect(unauth.headers['www-authenticate']).toMatch(/^Bearer/);
      expectProblem(responses[5]!, 401, 'invalid_token');
    });
  });
});
