import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicKey } from 'node:crypto';
import { createVerifier } from 'fast-jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startServer, type ServerProcess } from './server-process.js';

/** The real thing: `gatehouse serve` as its own process, spoken to over HTTP. */
describe('the server process', () => {
  let dir: string;
  let server: ServerProcess;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-proc-'));
    // An old variable name (docs/reference/configuration.md): still read, with one warning at start.
    server = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'g.db')}`, AGENTS_PER_ACCOUNT: '50' });
  });
  afterAll(async () => {
    await server.stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('registers, logs in and serves /users/me; the token verifies against the published JWKS', async () => {
    const { base } = server;
    const email = `proc-${Date.now()}@example.com`;
    const password = 'Quiet-Lantern-Meadow-7';
    expect((await postJson(base, '/v1/auth/register', { email, password, name: 'Proc' })).status).toBe(201);
    const tokens = (await (await postJson(base, '/v1/auth/login', { username: email, password })).json()) as { access_token: string };
    const me = await fetch(`${base}/v1/users/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { email: string }).email).toBe(email);

    const jwks = (await (await fetch(`${base}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> };
    const verify = createVerifier({
      algorithms: ['EdDSA'],
      allowedIss: base,
      allowedAud: `${base}/v1`,
      key: async ({ header }: { header: Record<string, unknown> }) => {
        const jwk = jwks.keys.find((k) => k.kid === header.kid);
        return createPublicKey({ key: jwk as never, format: 'jwk' }).export({ format: 'pem', type: 'spki' }).toString();
      },
    });
    const claims = (await verify(tokens.access_token)) as { sub: string };
    expect(claims.sub).toMatch(/^usr_/);
  });

  it('warns once at start of an old variable name, naming the new one', () => {
    const warnings = server.output().split('\n').filter((line) => line.includes('AGENTS_PER_ACCOUNT'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 40, msg: expect.stringContaining('set AGENTS_PER_ORGANIZATION instead') });
  });

  it('logs JSON lines without the password, and stops cleanly on SIGTERM', async () => {
    expect(server.output()).toContain('"msg":"gatehouse listening"');
    expect(server.output()).not.toContain('Quiet-Lantern-Meadow-7');
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(server.output()).toContain('shutting down');
  });
});
