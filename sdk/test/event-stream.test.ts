/**
 * Live streams (gh.chats.stream, gh.events.stream) against a real loopback HTTP server that
 * plays the protocol: order, resume with Last-Event-ID across dropped connections (no gap, no
 * duplicate), heartbeats, the refresh after a 401, the answers that end a stream, 429/503 waits,
 * each stream.closed reason, and that close(), an abort or a `break` close the server's socket.
 * Each test runs over fetch and over XMLHttpRequest (test/node-xhr.ts, an XHR over node:http).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createGatehouse, GatehouseError, memoryTokenStore, type EventStream, type StreamEvent } from '../src/index.js';
import { createSessionManager } from '../src/session.js';
import { openStream } from '../src/streams/event-stream.js';
import { resolveTransportChoice } from '../src/streams/transport.js';
import { xhrTransport } from '../src/streams/xhr-transport.js';
import { recordingFetch, rejection } from './helpers.js';
import { NodeXMLHttpRequest } from './node-xhr.js';
import { closedBecause, event, events, lastEventIdOf, openEvents, problem, startStreamServer, type StreamServer } from './stream-server.js';

let server: StreamServer;
beforeEach(async () => {
  server = await startStreamServer();
});
afterEach(async () => {
  await server.stop();
});

async function readAll(stream: EventStream, limit = Infinity): Promise<StreamEvent[]> {
  const seen: StreamEvent[] = [];
  for await (const item of stream) {
    seen.push(item);
    if (seen.length >= limit) break;
  }
  return seen;
}

const sequences = (list: StreamEvent[]) => list.map((e) => e.sequence);

/** Settles with 'closed' when the socket closes within `ms`, else 'open'. */
function closedWithin(promise: Promise<void>, ms = 2_000): Promise<'closed' | 'open'> {
  return Promise.race([promise.then(() => 'closed' as const), new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), ms))]);
}

describe.each(['fetch', 'xhr'] as const)('live streams over %s', (transport) => {
  beforeAll(() => {
    if (transport === 'xhr') vi.stubGlobal('XMLHttpRequest', NodeXMLHttpRequest);
  });
  afterAll(() => {
    vi.unstubAllGlobals();
  });

  const client = (options: Parameters<typeof createGatehouse>[0] | object = {}) => createGatehouse({ baseUrl: server.base, apiKey: 'gth_test_key', timeoutMs: 5_000, ...options });

  it('hands out the events in order with their sequence, ignores heartbeats, and sends the stream headers', async () => {
    server.script((res) => {
      openEvents(res);
      res.write(': ping\n\n');
      res.write(event(1, 'message.created', { id: 'msg_1', content: '' }));
      res.write(': ping\n\n');
      // One event split over several writes, a multi-byte character cut in two included.
      const text = event(2, 'message.delta', { content: 'héllo ✓' });
      const bytes = Buffer.from(text);
      const cut = bytes.indexOf(Buffer.from('✓')) + 1;
      res.write(bytes.subarray(0, cut));
      setTimeout(() => res.write(bytes.subarray(cut)), 20);
      setTimeout(() => res.write(event(3, 'message.completed', { id: 'msg_1', content: 'héllo ✓' }) + ': ping\n\n'), 40);
    });
    const recorder = recordingFetch();
    const gh = client({ fetch: recorder.fetch });
    const stream = gh.chats.stream('cht_1', { transport });
    const seen = await readAll(stream, 3);

    expect(seen).toEqual([
      { id: 'evt_0001', type: 'message.created', created_at: '2026-11-25T10:00:00.000Z', data: { id: 'msg_1', content: '' }, sequence: 1 },
      { id: 'evt_0002', type: 'message.delta', created_at: '2026-11-25T10:00:00.000Z', data: { content: 'héllo ✓' }, sequence: 2 },
      { id: 'evt_0003', type: 'message.completed', created_at: '2026-11-25T10:00:00.000Z', data: { id: 'msg_1', content: 'héllo ✓' }, sequence: 3 },
    ]);
    expect(stream.lastEventId).toBe('3');
    const [hit] = server.hits;
    expect(hit!.path).toBe('/v1/chats/cht_1/stream');
    expect(hit!.headers).toMatchObject({ accept: 'text/event-stream', authorization: 'Bearer gth_test_key' });
    expect(lastEventIdOf(hit!)).toBeNull();
    // The client's own fetch carries the fetch transport; the XHR one does not use fetch at all.
    expect(recorder.calls.length).toBe(transport === 'fetch' ? 1 : 0);
    // `break` closed the connection.
    expect(await closedWithin(hit!.socketClosed)).toBe('closed');
  });

  it('resumes with Last-Event-ID after the server drops the connection: no gap, no duplicate', async () => {
    server.script(
      (res) => {
        openEvents(res);
        res.write(events(1, 2));
        res.write(event(3).slice(0, 25)); // cut off mid-event: never handed out
        setTimeout(() => res.destroy(), 30);
      },
      (res) => {
        openEvents(res);
        res.end(events(2, 4)); // replays 2 (already handed out) and ends the stream cleanly
      },
      (res) => {
        openEvents(res);
        res.end(event(5) + closedBecause('chat_deleted'));
      },
    );
    const stream = client().chats.stream('cht_1', { transport });
    expect(sequences(await readAll(stream))).toEqual([1, 2, 3, 4, 5]);
    expect(server.hits.map(lastEventIdOf)).toEqual([null, '2', '4']);
    expect(stream.lastEventId).toBe('5');
  });

  it('starts after lastEventId (a number or a string), and ends normally on chat_deleted', async () => {
    server.script((res) => {
      openEvents(res);
      res.end(events(9, 12) + closedBecause('chat_deleted'));
    });
    const gh = client();
    expect(sequences(await readAll(gh.chats.stream('cht_1', { transport, lastEventId: 10 })))).toEqual([11, 12]);
    expect(sequences(await readAll(gh.chats.stream('cht_1', { transport, lastEventId: '11' })))).toEqual([12]);
    expect(server.hits.map(lastEventIdOf)).toEqual(['10', '11']);
    expect(() => gh.chats.stream('cht_1', { lastEventId: 'evt_1' })).toThrow(TypeError);
  });

  it('the account stream sends its type filter', async () => {
    server.script((res) => {
      openEvents(res);
      res.write(event(1, 'chat.message.created'));
    });
    const stream = client().events.stream({ transport, types: ['chat.*', 'agent.created'] });
    expect(sequences(await readAll(stream, 1))).toEqual([1]);
    expect(server.hits[0]!.path).toBe('/v1/events/stream');
    expect(server.hits[0]!.query.get('types')).toBe('chat.*,agent.created');
  });

  it('reconnects at once after stream.closed shutdown, too_slow and token_expired', async () => {
    const startedAt = Date.now();
    server.script(
      (res) => {
        openEvents(res, 5_000); // a long retry: only an immediate reconnect keeps this test fast
        res.end(event(1) + closedBecause('shutdown'));
      },
      (res) => {
        openEvents(res, 5_000);
        res.end(event(2) + closedBecause('too_slow'));
      },
      (res) => {
        openEvents(res, 5_000);
        res.end(event(3) + closedBecause('token_expired'));
      },
      (res) => {
        openEvents(res, 5_000);
        res.end(closedBecause('chat_deleted'));
      },
    );
    expect(sequences(await readAll(client().chats.stream('cht_1', { transport })))).toEqual([1, 2, 3]);
    expect(server.hits.map(lastEventIdOf)).toEqual([null, '1', '2', '3']);
    expect(Date.now() - startedAt).toBeLessThan(2_000);
  });

  it.each([
    ['credential_revoked', 401, 'invalid_token'],
    ['account_disabled', 403, 'account_disabled'],
  ])('after stream.closed %s, reconnects once and throws the server’s %i', async (reason, status, code) => {
    server.script(
      (res) => {
        openEvents(res);
        res.end(event(1) + closedBecause(reason));
      },
      (res) => problem(res, status, code),
    );
    const seen: StreamEvent[] = [];
    const error = await rejection(
      (async () => {
        for await (const item of client().chats.stream('cht_1', { transport })) seen.push(item);
      })(),
    );
    expect(error).toBeInstanceOf(GatehouseError);
    expect(error).toMatchObject({ status, code, requestId: 'req_stub' });
    expect(sequences(seen)).toEqual([1]);
    expect(server.hits).toHaveLength(2);
  });

  it.each([
    [400, 'invalid_request'],
    [401, 'invalid_token'],
    [403, 'insufficient_scope'],
    [404, 'not_found'],
    [409, 'conflict'],
  ])('ends with the GatehouseError on %i (API key: no refresh), without retrying', async (status, code) => {
    server.script((res) => problem(res, status, code));
    const error = await rejection(readAll(client().chats.stream('cht_missing', { transport })));
    expect(error).toMatchObject({ name: 'GatehouseError', status, code, detail: `stub says ${code}`, requestId: 'req_stub' });
    expect(server.hits).toHaveLength(1);
  });

  it('ends with invalid_response when a 200 is not an event stream', async () => {
    server.script((res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>captive portal</html>'));
    expect(await rejection(readAll(client().chats.stream('cht_1', { transport })))).toMatchObject({ code: 'invalid_response', status: 200 });
    expect(server.hits).toHaveLength(1);
  });

  it('waits for Retry-After on 429, reconnects after 503 and 500', async () => {
    server.script(
      (res) => problem(res, 429, 'too_many_streams', { 'retry-after': '1' }),
      (res) => problem(res, 503, 'unavailable', { 'retry-after': '0' }),
      (res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<html>bad gateway</html>'),
      (res) => {
        openEvents(res);
        res.end(event(1) + closedBecause('chat_deleted'));
      },
    );
    expect(sequences(await readAll(client().chats.stream('cht_1', { transport })))).toEqual([1]);
    expect(server.hits).toHaveLength(4);
    expect(server.hits[1]!.at - server.hits[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('reconnects after a network failure (nothing listening yet)', async () => {
    const base = server.base;
    await server.stop();
    const gh = createGatehouse({ baseUrl: base, apiKey: 'gth_test_key' });
    const stream = gh.chats.stream('cht_1', { transport });
    const iterator = stream[Symbol.asyncIterator]();
    const first = iterator.next();
    await new Promise((resolve) => setTimeout(resolve, 100)); // at least one refused connection
    stream.close();
    expect(await first).toEqual({ done: true, value: undefined });
  });

  it('replaces a connection on which nothing arrives for idleTimeoutMs', async () => {
    server.script(
      (res) => {
        openEvents(res);
        res.write(event(1)); // then silence: no heartbeat
      },
      (res) => {
        openEvents(res);
        res.end(event(2) + closedBecause('chat_deleted'));
      },
    );
    const stream = client().chats.stream('cht_1', { transport, idleTimeoutMs: 200 });
    expect(sequences(await readAll(stream))).toEqual([1, 2]);
    expect(lastEventIdOf(server.hits[1]!)).toBe('1');
    expect(await closedWithin(server.hits[0]!.socketClosed)).toBe('closed');
  });

  describe('ending it', () => {
    const live = (res: Parameters<Parameters<StreamServer['script']>[0]>[0]) => {
      openEvents(res);
      res.write(event(1));
      const heartbeat = setInterval(() => res.write(': ping\n\n'), 20);
      res.on('close', () => clearInterval(heartbeat));
    };

    it('close() while waiting for the next event ends the loop without error and closes the socket', async () => {
      server.script(live);
      const stream = client().chats.stream('cht_1', { transport });
      const seen: number[] = [];
      setTimeout(() => stream.close(), 150);
      for await (const item of stream) seen.push(item.sequence);
      expect(seen).toEqual([1]);
      expect(await closedWithin(server.hits[0]!.socketClosed)).toBe('closed');
      expect(server.hits).toHaveLength(1);
    });

    it('aborting the signal does the same', async () => {
      server.script(live);
      const controller = new AbortController();
      const stream = client().chats.stream('cht_1', { transport, signal: controller.signal });
      const seen: number[] = [];
      for await (const item of stream) {
        seen.push(item.sequence);
        setTimeout(() => controller.abort(), 50);
      }
      expect(seen).toEqual([1]);
      expect(await closedWithin(server.hits[0]!.socketClosed)).toBe('closed');
    });

    it('close() during a Retry-After wait ends it at once', async () => {
      server.script((res) => problem(res, 503, 'unavailable', { 'retry-after': '30' }));
      const stream = client().chats.stream('cht_1', { transport });
      const startedAt = Date.now();
      setTimeout(() => stream.close(), 100);
      expect(await readAll(stream)).toEqual([]);
      expect(Date.now() - startedAt).toBeLessThan(2_000);
      expect(server.hits).toHaveLength(1);
    });

    it('a stream can be iterated only once', async () => {
      server.script(live);
      const stream = client().chats.stream('cht_1', { transport });
      await readAll(stream, 1);
      expect(() => stream[Symbol.asyncIterator]()).toThrow(TypeError);
    });
  });

  describe('with a stored session', () => {
    const session = (accessToken: string) => memoryTokenStore({ accessToken, refreshToken: 'refresh_1', expiresAt: Date.now() + 3_600_000, scope: 'chats:read' });
    const tokens = (n: number) => ({ status: 200, body: { access_token: `access_${n}`, token_type: 'bearer', expires_in: 3600, refresh_token: `refresh_${n}`, scope: 'chats:read' } });

    it('uses the session’s token over the API key, and refreshes once after a 401 token_expired', async () => {
      server.onRefresh(() => tokens(2));
      server.script(
        (res) => problem(res, 401, 'token_expired'),
        (res) => {
          openEvents(res);
          res.end(event(1) + closedBecause('chat_deleted'));
        },
      );
      const store = session('access_1');
      const gh = client({ tokenStore: store });
      expect(sequences(await readAll(gh.chats.stream('cht_1', { transport })))).toEqual([1]);
      expect(server.hits.map((h) => h.headers.authorization)).toEqual(['Bearer access_1', 'Bearer access_2']);
      expect(server.refreshes).toEqual(['refresh_1']);
      expect(await store.get()).toMatchObject({ accessToken: 'access_2', refreshToken: 'refresh_2' });
    });

    it('a second 401 after the refresh ends the stream', async () => {
      server.onRefresh(() => tokens(2));
      server.script((res) => problem(res, 401, 'invalid_token'));
      const error = await rejection(readAll(client({ tokenStore: session('access_1') }).chats.stream('cht_1', { transport })));
      expect(error).toMatchObject({ status: 401, code: 'invalid_token' });
      expect(server.hits).toHaveLength(2);
      expect(server.refreshes).toHaveLength(1);
    });

    it('a refused refresh ends the stream with the refresh’s error and clears the session', async () => {
      server.onRefresh(() => ({ status: 401, body: { type: 'about:blank', title: 'Invalid token', status: 401, code: 'invalid_token', detail: 'reused' } }));
      server.script((res) => problem(res, 401, 'token_expired'));
      const store = session('access_1');
      const error = await rejection(readAll(client({ tokenStore: store }).chats.stream('cht_1', { transport })));
      expect(error).toMatchObject({ status: 401, code: 'invalid_token', detail: 'reused' });
      expect(server.hits).toHaveLength(1);
      expect(await store.get()).toBeNull();
    });

    it('after stream.closed token_expired, reconnects at once with a refreshed token', async () => {
      server.onRefresh(() => tokens(2));
      server.script(
        (res) => {
          openEvents(res, 5_000);
          res.end(event(1) + closedBecause('token_expired'));
        },
        (res) => {
          openEvents(res);
          res.end(event(2) + closedBecause('chat_deleted'));
        },
      );
      expect(sequences(await readAll(client({ tokenStore: session('access_1') }).chats.stream('cht_1', { transport })))).toEqual([1, 2]);
      expect(server.hits.map((h) => [h.headers.authorization, lastEventIdOf(h)])).toEqual([
        ['Bearer access_1', null],
        ['Bearer access_2', '1'],
      ]);
      expect(server.hits[1]!.at - server.hits[0]!.at).toBeLessThan(1_000);
    });
  });
});

describe('live streams over fetch: back-pressure', () => {
  it('does not read ahead while the consumer is busy (the server’s writes block)', async () => {
    let written = 0;
    let blocked = false;
    server.script((res) => {
      openEvents(res);
      res.write(event(1));
      const padding = `: ${'x'.repeat(64 * 1024)}\n`;
      const pump = () => {
        // Writes until the socket pushes back, then waits for it to drain: at most 256 MB.
        while (written < 256 * 1024 * 1024) {
          written += padding.length;
          if (!res.write(padding)) {
            blocked = true;
            return void res.once('drain', () => {
              blocked = false;
              pump();
            });
          }
        }
      };
      pump();
    });
    const stream = createGatehouse({ baseUrl: server.base, apiKey: 'k' }).chats.stream('cht_1', { transport: 'fetch' });
    for await (const item of stream) {
      expect(item.sequence).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 500)); // a slow consumer
      expect(blocked).toBe(true);
      // Kernel socket buffers and the fetch body's queue, not the whole 256 MB the server would send.
      expect(written).toBeLessThan(32 * 1024 * 1024);
      break;
    }
    expect(await closedWithin(server.hits[0]!.socketClosed)).toBe('closed');
  });
});

describe('live streams over XMLHttpRequest: bounded responseText', () => {
  beforeAll(() => {
    vi.stubGlobal('XMLHttpRequest', NodeXMLHttpRequest);
  });
  afterAll(() => {
    vi.unstubAllGlobals();
  });

  it('ends a connection whose responseText passed the limit, at an event boundary, and resumes at once', async () => {
    // The server streams events 1…20 one write at a time, from after the Last-Event-ID it is given.
    server.script((res, hit) => {
      openEvents(res, 5_000);
      let next = Number(lastEventIdOf(hit) ?? 0) + 1;
      const timer = setInterval(() => {
        if (next > 20) {
          clearInterval(timer);
          return void res.end(closedBecause('chat_deleted'));
        }
        res.write(event(next++));
      }, 2);
      res.on('close', () => clearInterval(timer));
    });
    const sessions = createSessionManager({ store: memoryTokenStore(), now: Date.now, refreshMarginMs: 0, exchange: () => Promise.reject(new Error('no refresh here')) });
    const config = { http: { baseUrl: server.base, fetch: globalThis.fetch, now: Date.now }, sessions, apiKey: 'k', organization: () => null, timeoutMs: 5_000, hasOwnFetch: false };
    const stream = openStream(config, { path: '/v1/chats/cht_1/stream', transport: xhrTransport({ now: Date.now, maxResponseChars: 400 }) });

    expect(sequences(await readAll(stream))).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const resumedFrom = server.hits.map((hit) => Number(lastEventIdOf(hit) ?? 0));
    expect(server.hits.length).toBeGreaterThan(4);
    expect(resumedFrom).toEqual([...resumedFrom].sort((a, b) => a - b)); // always forward
    // The recycled ones were closed by the client (the last one ended normally; its socket may stay pooled).
    for (const hit of server.hits.slice(0, -1)) expect(await closedWithin(hit.socketClosed)).toBe('closed');
  });
});

describe('transport choice', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('auto: fetch where it can stream, XMLHttpRequest on React Native or without fetch / ReadableStream', () => {
    expect(resolveTransportChoice('auto', false)).toBe('fetch');
    vi.stubGlobal('navigator', { product: 'ReactNative' });
    expect(resolveTransportChoice('auto', true)).toBe('xhr');
    expect(resolveTransportChoice('fetch', false)).toBe('fetch');
    vi.unstubAllGlobals();
    vi.stubGlobal('ReadableStream', undefined);
    expect(resolveTransportChoice('auto', true)).toBe('xhr');
    vi.unstubAllGlobals();
    vi.stubGlobal('fetch', undefined);
    expect(resolveTransportChoice('auto', false)).toBe('xhr');
    expect(resolveTransportChoice('auto', true)).toBe('fetch'); // the client's own fetch
  });

  it('xhr where there is no XMLHttpRequest ends the iteration with a TypeError', async () => {
    const stream = createGatehouse({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k' }).chats.stream('cht_1', { transport: 'xhr' });
    expect(await rejection(readAll(stream))).toBeInstanceOf(TypeError);
  });
});
