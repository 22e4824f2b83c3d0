import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startServer, type ServerProcess } from '../server-process.js';
import { openSse, type SseConnection } from '../sse-client.js';
import { signUpOver } from '../webhooks/process-helpers.js';
import { createPrivateRedis, type PrivateRedis } from './private-redis.js';
import { sqliteStorage, type Storage } from './storage.js';

/**
 * Live streams across two instances while Redis dies and comes back. Redis only carries notices
 * ("the account reached event N"), never events: a notice lost while Redis is down costs a delay
 * (the feed's periodic check of the counters, or its catch-up when the subscription returns),
 * never an event, and never an order. Two servers on one SQLite file, a private redis-server.
 */
describe('live streams while Redis is restarted', () => {
  let redis: PrivateRedis;
  let storage: Storage;
  let a: ServerProcess;
  let b: ServerProcess;
  let sse: SseConnection | undefined;
  beforeAll(async () => {
    redis = await createPrivateRedis();
    await redis.start();
    storage = sqliteStorage();
    const env = { DATABASE_URL: storage.url, REDIS_URL: redis.url, LOG_LEVEL: 'warn', PUBLIC_URL: 'https://gatehouse.example', PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000' };
    a = await startServer(env);
    b = await startServer(env);
  }, 90_000);
  afterAll(async () => {
    sse?.close();
    await Promise.all([a?.stop('SIGKILL'), b?.stop('SIGKILL')]);
    await redis?.destroy();
    await storage?.drop();
  });

  it('delivers on instance B, in order and once, what instance A committed while Redis was down', async () => {
    const token = await signUpOver(a.base);
    const agent = (await (await postJson(a.base, '/v1/agents', { name: 'Bot', model: 'm' }, token)).json()) as { id: string };
    const chat = (await (await postJson(a.base, '/v1/chats', { agent_id: agent.id }, token)).json()) as { id: string };
    const say = async (content: string) => expect((await postJson(a.base, `/v1/chats/${chat.id}/messages`, { role: 'user', content }, token)).status).toBe(201);
    sse = await openSse(`${b.base}/v1/chats/${chat.id}/stream`, { authorization: `Bearer ${token}` });
    expect(sse.status).toBe(200);
    await say('before');
    await sse.next((e) => e.data.data?.content === 'before');

    await redis.kill();
    for (const content of ['while down 1', 'while down 2']) await say(content);
    // No notice can cross now; the feed's check of the counters (every 10 s) brings them anyway.
    await sse.next((e) => e.data.data?.content === 'while down 2', 15_000);

    await redis.start();
    await say('after');
    await sse.next((e) => e.data.data?.content === 'after', 15_000);
    expect(sse.events.map((e) => e.data.data?.content)).toEqual(['before', 'while down 1', 'while down 2', 'after']);
    const ids = sse.events.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
  }, 60_000);
});
