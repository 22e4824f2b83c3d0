import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The root package.json overrides two transitive packages with their last Node 20 releases
 * (content-disposition 2.0.1 under @fastify/static, cookie 1.1.1 under light-my-request; the
 * releases their parents ask for need Node 22). No Gatehouse route reaches the calls that use
 * them, so these tests make those exact calls and fail if an override stops fitting its parent.
 */
describe('overridden dependencies', () => {
  let dir: string;
  let app: FastifyInstance;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-overrides-'));
    writeFileSync(join(dir, 'report.txt'), 'plain');
    writeFileSync(join(dir, 'résumé.txt'), 'accented');
    app = Fastify();
    await app.register(fastifyStatic, { root: dir, serve: false });
    app.get('/download/:name', async (request, reply) => reply.download((request.params as { name: string }).name));
    app.get('/echo-cookie', async (request) => ({ cookie: request.headers.cookie ?? null }));
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('@fastify/static names a download with content-disposition', async () => {
    const plain = await app.inject({ url: '/download/report.txt' });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-disposition']).toBe('attachment; filename=report.txt');
    expect(plain.body).toBe('plain');

    const accented = await app.inject({ url: `/download/${encodeURIComponent('résumé.txt')}` });
    expect(accented.statusCode).toBe(200);
    expect(accented.headers['content-disposition']).toBe(
      `attachment; filename="r?sum?.txt"; filename*=UTF-8''r%C3%A9sum%C3%A9.txt`,
    );
  });

  it("fastify's inject sends the cookies option as a Cookie header", async () => {
    const res = await app.inject({ url: '/echo-cookie', cookies: { session: 'abc', note: 'a b' } });
    expect(res.json()).toEqual({ cookie: 'session=abc; note=a%20b' });

    const byPath = await app.inject({
      url: '/echo-cookie',
      cookies: [{ name: 'here', value: '1', path: '/echo-cookie' }, { name: 'elsewhere', value: '2', path: '/other' }],
    });
    expect(byPath.json()).toEqual({ cookie: 'here=1' });
  });
});
