import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from '../server-process.js';
import { signUpOver } from '../webhooks/process-helpers.js';
import { agentTraffic, call, isProblem, paced, tally, within, type Outcome } from './http.js';
import { createPrivatePostgres, type PrivatePostgres } from './private-postgres.js';

/**
 * PostgreSQL dies under load (immediate shutdown: every backend killed at once) and comes back.
 * Meanwhile the service must answer, quickly, 503 problem+json `service_unavailable` with
 * Retry-After for what needs the database (never a 500, never a hang), say not-ready on /readyz,
 * stay alive, and serve everything again once the database is back. A private cluster: the
 * shared one is never touched.
 */
const CLIENTS = 6;
const PERIOD_MS = 800; // 75 requests a minute per account: under the free tier's 100
const ANSWER_BOUND_MS = 10_000; // the pool's 5 s connect timeout, with room for a loaded machine

describe('PostgreSQL restarted under load', () => {
  let cluster: PrivatePostgres;
  let server: ServerProcess;
  beforeAll(async () => {
    cluster = await createPrivatePostgres();
    await cluster.start();
    server = await startServer({ DATABASE_URL: cluster.url, LOG_LEVEL: 'warn', PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000' });
  }, 90_000);
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await cluster?.destroy();
  });

  it('answers 503 service_unavailable while it is down and recovers fully', async () => {
    const tokens = await Promise.all(Array.from({ length: CLIENTS }, () => signUpOver(server.base)));
    const t0 = Date.now();
    const outcomes: Outcome[] = [];
    const readiness: Outcome[] = [];
    let stop = false;
    const clients = agentTraffic(server.base, tokens, { label: 'pg restart', periodMs: PERIOD_MS, timeoutMs: ANSWER_BOUND_MS + 5_000, t0, outcomes, stop: () => stop });
    const probe = paced(500, () => stop, async () => void readiness.push(await call(server.base, 'GET', '/readyz', { timeoutMs: 10_000 }, t0)));

    await sleep(2_700);
    // Probes hammering /readyz keep pool clients checked out at the moment the database dies: the
    // case where an unhandled 'error' event of a busy client used to kill the process.
    let probing = true;
    const probes = Array.from({ length: 8 }, () => paced(0, () => !probing, async () => void readiness.push(await call(server.base, 'GET', '/readyz', { timeoutMs: 10_000 }, t0))));
    await sleep(300);
    const downAt = Date.now() - t0;
    await cluster.stopImmediately();
    const stoppedAt = Date.now() - t0;
    await sleep(500);
    probing = false;
    await Promise.all(probes);
    await sleep(5_500);
    expect(server.child.exitCode, `the server died with the database:\n${server.output().slice(-3_000)}`).toBeNull();
    const upAt = Date.now() - t0;
    await cluster.start();
    await within(30_000, '/readyz back to 200 after the database returned', async () => readiness.at(-1)?.status === 200 && readiness.at(-1)!.at > upAt);
    const readyAt = Date.now() - t0;
    await sleep(4_000);
    stop = true;
    await Promise.all([...clients, probe]);

    const summary = `${tally(outcomes)} (down ${downAt}–${upAt} ms, ready again at ${readyAt} ms)`;
    // Never a 500, never a dropped connection, never a hang: 2xx or a 503 problem with Retry-After.
    const bad = outcomes.filter((o) => !(o.status && o.status < 300) && !(o.status === 503 && isProblem(o, 'service_unavailable') && o.retryAfter));
    expect(bad, summary).toEqual([]);
    expect(Math.max(...outcomes.map((o) => o.ms)), summary).toBeLessThan(ANSWER_BOUND_MS);
    // Before the stop everything worked; while down the database's absence showed.
    expect(outcomes.filter((o) => o.at + o.ms < downAt).every((o) => o.status! < 300), summary).toBe(true);
    expect(outcomes.filter((o) => o.at > downAt && o.at < upAt && o.status === 503).length, summary).toBeGreaterThan(0);
    // /readyz: 200 or 503 naming the database throughout, and only 503 once the stop completed.
    expect(readiness.filter((o) => o.status !== 200 && !(isProblem(o, 'service_unavailable') && o.body.checks?.database === 'unavailable')), tally(readiness)).toEqual([]);
    const downReadiness = readiness.filter((o) => o.at > stoppedAt && o.at + o.ms < upAt);
    expect(downReadiness.length).toBeGreaterThan(0);
    expect(downReadiness.filter((o) => o.status !== 503), tally(downReadiness)).toEqual([]);
    // Back: everything sent a second after /readyz said so succeeds, writes included.
    const after = outcomes.filter((o) => o.at > readyAt + 1_000);
    expect(after.length).toBeGreaterThan(CLIENTS);
    expect(after.filter((o) => o.status !== 200 && o.status !== 201), tally(after)).toEqual([]);
    expect(server.child.exitCode, server.output()).toBeNull();
    expect(await server.stop('SIGTERM')).toBe(0);
  }, 120_000);
});

