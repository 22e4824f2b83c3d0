import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { registerCommonHeaders, setCommonHeaders, settingCommonHeaders } from './common-headers.js';

describe('registerCommonHeaders', () => {
  it('puts its hook first on every route whose first hook does not set the headers itself, so early refusals carry them', async () => {
    const app = Fastify();
    let ownRuns = 0;
    app.addHook('onRoute', (route) => {
      // What a cross-cutting check does: put itself first (as the public rate limit does).
      if (route.url === '/v1/refused') route.onRequest = [async () => { throw Object.assign(new Error('no'), { statusCode: 429 }); }];
      if (route.url === '/v1/own') route.onRequest = [settingCommonHeaders((request, reply, done) => { ownRuns++; setCommonHeaders(request, reply); done(); })];
    });
    registerCommonHeaders(app);
    const hooks: Record<string, number> = {};
    app.addHook('onRoute', (route) => void (hooks[route.url] = [route.onRequest ?? []].flat().length));
    app.get('/v1/refused', async () => 'never');
    app.get('/v1/own', async () => 'ok');
    app.get('/plain', async () => 'ok');
    const refused = await app.inject('/v1/refused');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['x-request-id']).toBeTruthy();
    expect(refused.headers['cache-control']).toBe('no-store');
    const own = await app.inject('/v1/own');
    expect(own.headers['x-content-type-options']).toBe('nosniff');
    expect(ownRuns).toBe(1);
    const plain = await app.inject('/plain');
    expect(plain.headers['x-content-type-options']).toBe('nosniff');
    expect(plain.headers['cache-control']).toBeUndefined();
    expect(hooks).toEqual({ '/v1/refused': 2, '/v1/own': 1, '/plain': 1 });
  });
});
