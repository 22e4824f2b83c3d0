import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from '../server-process.js';
import { signUpOver } from '../webhooks/process-helpers.js';
import { agentTraffic, call, isProblem, paced, tally, within, type Outcome } from './http.js';
import { createPrivateRedis, type PrivateRedis } from './private-redis.js';
import { sqliteStorage, type Storage } from './storage.js';

/**
 * Redis dies under load and comes back. The documented choice (docs/guides/many-instances.md,
 * "When Redis is unreachable"): keep serving, limit each instance in memory, log `redis limiter
 * failed`, say not-ready naming redis. So every request must still succeed, quickly; and once Redis is back,
 * /readyz is 200 again and the limiter writes its counters there again. A private redis-server:
 * the shared one is never touched.
 */
const CLIENTS = 6;
const PERIOD_MS = 800; // 75 requests a minute per account: under the free tier's 100
const ANSWER_BOUND_MS = 5_000; // the limiter's own bound is 500 ms; room for a loaded machine
const PASSWORD = 'Copper-Willow-Signal-58';

describe('Redis restarted under load', () => {
  let redis: PrivateRedis;
  let storage: Storage;
  let server: ServerProcess;
  beforeAll(async () => {
    redis = await createPrivateRedis();
    await redis.start();
    storage = sqliteStorage();
    server = await startServer({ DATABASE_URL: storage.url, REDIS_URL: redis.url, LOG_LEVEL: 'warn', PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000' });
  }, 90_000);
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await redis?.destroy();
    await storage?.drop();
  });

  it('keeps serving from memory while it is down, and uses it again once back', async () => {
    const tokens = await Promise.all(Array.from({ length: CLIENTS }, () => signUpOver(server.base)));
    const email = `redis-restart-${Date.now()}@example.com`;
    expect((await call(server.base, 'POST', '/v1/auth/register', { body: { email, password: PASSWORD, name: 'Logins' } })).status).toBe(201);
    const t0 = Date.now();
    const outcomes: Outcome[] = [];
    const readiness: Outcome[] = [];
    let stop = false;
    const clients = agentTraffic(server.base, tokens, { label: 'redis restart', periodMs: PERIOD_MS, timeoutMs: ANSWER_BOUND_MS + 5_000, t0, outcomes, stop: () => stop });
    // Logins at a low rate: they go through the per-IP and per-email attempt limiters, also on Redis.
    const logins = paced(1_000, () => stop, async () => void outcomes.push(await call(server.base, 'POST', '/v1/auth/login', { body: { username: email, password: PASSWORD } }, t0)));
    const probe = paced(500, () => stop, async () => void readiness.push(await call(server.base, 'GET', '/readyz', { timeoutMs: 10_000 }, t0)));

    await sleep(3_000);
    const downAt = Date.now() - t0;
    await redis.kill();
    await sleep(6_000);
    expect(server.child.exitCode, `the server died with Redis:\n${server.output().slice(-3_000)}`).toBeNull();
    const upAt = Date.now() - t0;
    await redis.start();
    await within(20_000, '/readyz back to 200 after Redis returned', async () => readiness.at(-1)?.status === 200 && readiness.at(-1)!.at > upAt).catch((error: Error) => {
      // Seen once in CI under load and not reproduced: say what readiness and the server said.
      const recent = readiness.slice(-6).map((o) => `${o.at} ms: ${o.status ?? o.error} ${JSON.stringify(o.body?.checks ?? null)} (${o.ms} ms)`);
      throw new Error(`${error.message} (Redis up at ${upAt} ms)\nlast probes:\n${recent.join('\n')}\nserver:\n${server.output().slice(-2_000)}`);
    });
    const readyAt = Date.now() - t0;
    await sleep(3_000);
    stop = true;
    await Promise.all([...clients, logins, probe]);

    const summary = `${tally(outcomes)} (down ${downAt}–${upAt} ms, ready again at ${readyAt} ms)`;
    // Every request succeeded, down or not, and none waited long for a dead Redis.
    expect(outcomes.filter((o) => !(o.status && o.status < 300)), summary).toEqual([]);
    expect(outcomes.filter((o) => o.at > downAt && o.at < upAt).length, summary).toBeGreaterThan(2 * CLIENTS);
    expect(Math.max(...outcomes.map((o) => o.ms)), summary).toBeLessThan(ANSWER_BOUND_MS);
    // Not ready while it was down, naming redis and only redis.
    const downReadiness = readiness.filter((o) => o.at > downAt + 1_000 && o.at + o.ms < upAt);
    expect(downReadiness.length).toBeGreaterThan(0);
    for (const o of downReadiness) {
      expect(isProblem(o, 'service_unavailable'), JSON.stringify(o)).toBe(true);
      expect(o.body.checks).toEqual({ database: 'ok', redis: 'unavailable' });
    }
    // The fallback was logged, as documented.
    expect(server.output()).toContain('redis limiter failed');
    // The restarted Redis came up empty: counters in it now were written by the limiter after the outage.
    const counters = await redis.client().keys('gatehouse:rl:*');
    expect(counters.length, 'rate-limit counters in the restarted Redis').toBeGreaterThanOrEqual(CLIENTS);
    expect(server.child.exitCode, server.output()).toBeNull();
    expect(await server.stop('SIGTERM')).toBe(0);
  }, 120_000);
});
