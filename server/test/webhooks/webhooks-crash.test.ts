import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { postJson, startServer, type ServerProcess } from '../server-process.js';
import { getJson, scratchPostgres, signUpOver, until } from './process-helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

/**
 * The outbox survives a crash: a server killed with SIGKILL between the change and its delivery
 * delivers the event after a restart on the same database, exactly once. Two ways to be caught:
 * the receiver hangs (the claim is in flight; the restarted server retakes it when the lease runs
 * out) or is down (a failed try is already recorded; the next one is due after a restart).
 */
const dir = mkdtempSync(join(tmpdir(), 'gatehouse-crash-'));
const databases: Array<{ name: string; open(): Promise<{ url: string; drop(): Promise<void> }> }> = [
  { name: 'sqlite', open: async () => ({ url: `sqlite:${join(dir, `crash-${Math.random().toString(36).slice(2)}.db`)}`, drop: async () => {} }) },
  ...(process.env.DATABASE_URL?.startsWith('postgres') ? [{ name: 'postgres', open: scratchPostgres }] : []),
];

describe.each(databases)('webhook delivery across SIGKILL ($name)', ({ open }) => {
  const live: ServerProcess[] = [];
  const receivers: Receiver[] = [];
  const drops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(live.splice(0).map((s) => s.stop('SIGKILL')));
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });
  afterAll(async () => {
    for (const drop of drops) await drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['hang', 'down'] as const)('receiver %s when the server dies: delivered once after restart', async (caught) => {
    const db = await open();
    drops.push(db.drop);
    // One public URL for both lives: it is the tokens' issuer.
    const env = { PUBLIC_URL: 'https://gatehouse.example', DATABASE_URL: db.url, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS: '1,1,1,1,1,1,1,1', LOG_LEVEL: 'warn', PUBLIC_RATE_LIMIT_PER_MINUTE: '1000' };
    const rx = await startReceiver(caught);
    receivers.push(rx);
    const first = await startServer(env);
    live.push(first);
    const token = await signUpOver(first.base);
    const hook = await (await postJson(first.base, '/v1/webhooks', { url: rx.url, events: ['agent.created'] }, token)).json() as { id: string };
    expect((await postJson(first.base, '/v1/agents', { name: 'Crash', model: 'm' }, token)).status).toBe(201);
    const deliveriesVia = (base: string) => () => getJson(base, `/v1/webhooks/${hook.id}/deliveries`, token).then((p) => p.data[0]);
    if (caught === 'hang') await rx.waitFor((r) => r.length === 1); // the attempt is in flight, claimed
    else await until(deliveriesVia(first.base), (d) => d?.attempt_count >= 1, 10_000); // a failed try is recorded

    await first.stop('SIGKILL');
    await rx.set({ status: 200 });
    const second = await startServer(env);
    live.push(second);

    // Hang: the restarted server waits out the dead one's lease (20 s) before trying again.
    const delivered = await until(deliveriesVia(second.base), (d) => d?.status === 'delivered', 40_000);
    const eventId = delivered.event_id as string;
    await new Promise((r) => setTimeout(r, 2_500)); // room for a duplicate to show up, if there were one
    expect(rx.acceptedIds()).toEqual([eventId]);
    const final = await deliveriesVia(second.base)();
    expect(final).toMatchObject({ status: 'delivered', last_status_code: 200 });
    // The killed attempt never wrote an outcome; a refused one did.
    if (caught === 'hang') expect(final.attempts.map((a: { status_code: number | null }) => a.status_code)).toEqual([200]);
    else expect(final.attempt_count).toBeGreaterThanOrEqual(2);
    // A clean stop: the worker hands back what it holds and the process exits 0.
    expect(await second.stop('SIGTERM')).toBe(0);
  }, 150_000); // two server starts (each up to 60 s on a loaded machine) and a 20 s lease
});
