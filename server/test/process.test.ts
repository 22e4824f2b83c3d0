import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicKey } from 'node:crypto';
import { createVerifier } from 'fast-jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The real thing: `gatehouse serve` as its own process, spoken to over HTTP. */
describe('the server process', () => {
  let dir: string;
  let child: ChildProcess;
  let base: string;
  let output = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-proc-'));
    const port = 20000 + Math.floor(Math.random() * 20000);
    base = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, ['bin/gatehouse.js', 'serve'], {
      cwd: join(import.meta.dirname, '..'),
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, DATABASE_URL: process.env.DATABASE_URL ?? `sqlite:${join(dir, 'g.db')}`, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    for (let i = 0; i < 100; i++) {
      if (await fetch(`${base}/healthz`).then((r) => r.ok, () => false)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`server did not start:\n${output}`);
  });
  afterAll(() => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('registers, logs in and serves /users/me; the token verifies against the published JWKS', async () => {
    const email = `proc-${Date.now()}@example.com`;
    const password = 'Quiet-Lantern-Meadow-7';
    const post = (path: string, body: unknown) => fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post('/v1/auth/register', { email, password, name: 'Proc' })).status).toBe(201);
    const tokens = (await (await post('/v1/auth/login', { username: email, password })).json()) as { access_token: string };
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
    const claims = (await verify(tokens.access_token)) as { sub: string; email?: string };
    expect(claims.sub).toMatch(/^usr_/);
  });

  it('logs one JSON line per request without the password, and stops cleanly on SIGTERM', async () => {
    expect(output).toContain('"msg":"gatehouse listening"');
    expect(output).not.toContain('Quiet-Lantern-Meadow-7');
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toContain('shutting down');
  });
});
