/**
 * Typed errors: server problems carry code, status, request_id, detail and field errors; the
 * client's own failures (network, timeout, abort, unusable answers) are GatehouseErrors too.
 */
import { createServer as createHttpServer, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatehouse, GatehouseError, isGatehouseError } from '../src/index.js';
import { recordingFetch, rejection, signUp } from './helpers.js';
import { startLiveServer, STRONG_PASSWORD, uniqueEmail, type LiveServer } from './live-server.js';

let server: LiveServer;
let stub: Server;
let stubBase: string;
const hanging: ServerResponse[] = [];

beforeAll(async () => {
  server = await startLiveServer();
  // A misbehaving upstream on loopback: /hang/… never answers, /html/… is a proxy's error page.
  stub = createHttpServer((req, res) => {
    if (req.url?.startsWith('/hang/')) return void hanging.push(res);
    res.writeHead(502, { 'content-type': 'text/html', 'x-request-id': 'req_from_proxy' }).end('<html><body>Bad gateway</body></html>');
  });
  await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
  const address = stub.address();
  stubBase = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  await server?.stop();
  for (const res of hanging) res.destroy();
  stub?.closeAllConnections();
  await new Promise((resolve) => stub?.close(resolve));
});

describe('server problems', () => {
  it('validation_failed carries the field errors, the request id and the problem', async () => {
    const recorder = recordingFetch();
    const gh = createGatehouse({ baseUrl: server.base, fetch: recorder.fetch });
    const error = await rejection(gh.auth.register({ email: 'not-an-email', password: STRONG_PASSWORD, name: 'X' }));
    expect(error).toBeInstanceOf(GatehouseError);
    expect(error).toBeInstanceOf(Error);
    const e = error as GatehouseError;
    expect(e).toMatchObject({ name: 'GatehouseError', code: 'validation_failed', status: 400, title: 'Validation failed' });
    expect(e.errors).toEqual([expect.objectContaining({ field: '/email', code: 'invalid_format' })]);
    expect(e.requestId).toMatch(/^req_/);
    expect(e.requestId).toBe(recorder.calls[0]!.responseHeaders.get('x-request-id'));
    expect(e.detail).toBeTruthy();
    expect(e.message).toContain('validation_failed');
    expect(e.problem).toMatchObject({ code: 'validation_failed', request_id: e.requestId });
  });

  it('maps each status to its code', async () => {
    const { gh, email, password } = await signUp(server);
    expect(await rejection(gh.auth.register({ email, password, name: 'Again' }))).toMatchObject({ code: 'email_taken', status: 409 });
    expect(await rejection(gh.auth.login({ username: uniqueEmail(), password }))).toMatchObject({ code: 'invalid_credentials', status: 401 });
    expect(await rejection(gh.agents.get('agt_01jd4z3k8x2v6n9q7w5e3r1t0y'))).toMatchObject({ code: 'not_found', status: 404 });
    expect(await rejection(gh.me.changePassword({ current_password: 'wrong password here', new_password: 'Another-Strong-Pass-9' }))).toMatchObject({
      status: 400,
      errors: [expect.objectContaining({ code: 'incorrect_password' })],
    });
    const signedOut = createGatehouse({ baseUrl: server.base });
    expect(await rejection(signedOut.me.get())).toMatchObject({ code: 'authentication_required', status: 401 });
  });

  it('isGatehouseError narrows, optionally by code, and recognises errors from another copy of the SDK', async () => {
    const error = await rejection(createGatehouse({ baseUrl: server.base }).usage.get());
    expect(isGatehouseError(error)).toBe(true);
    expect(isGatehouseError(error, 'authentication_required')).toBe(true);
    expect(isGatehouseError(error, 'not_found')).toBe(false);
    expect(isGatehouseError(new Error('x'))).toBe(false);
    expect(isGatehouseError(null)).toBe(false);
    const foreign = Object.assign(new Error('rate_limited: …'), { name: 'GatehouseError', code: 'rate_limited', status: 429 });
    expect(isGatehouseError(foreign, 'rate_limited')).toBe(true);
  });
});

describe('client-side failures', () => {
  it('network_error when nothing listens', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createTcpServer().listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
    });
    const error = await rejection(createGatehouse({ baseUrl: `http://127.0.0.1:${port}` }).system.health());
    expect(error).toMatchObject({ code: 'network_error', status: 0, requestId: null });
    expect((error as Error).cause).toBeDefined();
  });

  it('sends a safe request again once when its connection closed before any answer (a stale keep-alive connection), never a POST without a key', async () => {
    // A server that drops the next request without a word, as a server closing an idle pooled
    // connection does when the request crosses its FIN; a new connection is then answered.
    const seen: string[] = [];
    let dropNext = true;
    const flaky = createHttpServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (dropNext) {
        dropNext = false;
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok' }));
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(flaky.address() as { port: number }).port}`;
    try {
      const gh = createGatehouse({ baseUrl: base });
      expect(await gh.system.health()).toEqual({ status: 'ok' });
      expect(seen).toEqual(['GET /healthz', 'GET /healthz']);

      seen.length = 0;
      dropNext = true;
      const login = await rejection(gh.auth.login({ username: 'ada@example.com', password: 'a long unusual passphrase' }));
      expect(login).toMatchObject({ code: 'network_error', status: 0 });
      expect(seen).toEqual(['POST /v1/auth/login']); // not repeated: it may have been done

      seen.length = 0;
      dropNext = true;
      const once = createGatehouse({ baseUrl: base, maxRetries: 0 });
      expect(await rejection(once.system.health())).toMatchObject({ code: 'network_error' });
      expect(seen).toEqual(['GET /healthz']);
    } finally {
      flaky.closeAllConnections();
      await new Promise((resolve) => flaky.close(resolve));
    }
  });

  it('timeout from the client option and from the per-call option', async () => {
    const gh = createGatehouse({ baseUrl: `${stubBase}/hang`, timeoutMs: 200 });
    let started = Date.now();
    expect(await rejection(gh.system.health())).toMatchObject({ code: 'timeout', status: 0 });
    expect(Date.now() - started).toBeLessThan(2_000);

    started = Date.now();
    const patient = createGatehouse({ baseUrl: `${stubBase}/hang` });
    expect(await rejection(patient.system.jwks({ timeoutMs: 150 }))).toMatchObject({ code: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('aborted when the caller’s AbortSignal fires, before or during the call', async () => {
    const gh = createGatehouse({ baseUrl: `${stubBase}/hang` });
    const controller = new AbortController();
    const pending = gh.system.health({ signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect(await rejection(pending)).toMatchObject({ code: 'aborted', status: 0 });

    const quiet = createGatehouse({ baseUrl: server.base });
    expect(await rejection(quiet.system.health({ signal: AbortSignal.abort() }))).toMatchObject({ code: 'aborted' });
  });

  it('invalid_response for an error answer that is not problem+json', async () => {
    const error = await rejection(createGatehouse({ baseUrl: `${stubBase}/html` }).system.health());
    expect(error).toMatchObject({ code: 'invalid_response', status: 502, requestId: 'req_from_proxy' });
    expect((error as GatehouseError).detail).toContain('Bad gateway');
  });
});
