import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startServer, type ServerProcess } from '../server-process.js';
import { scratchPostgres, signUpOver } from './process-helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

/**
 * Two server processes on one PostgreSQL database both run a delivery worker over the same
 * outbox: every event reaches the receiver exactly once, and no attempt is made twice.
 * Runs when DATABASE_URL (PostgreSQL) and REDIS_URL are set, like multi-instance.test.ts.
 */
const enabled = Boolean(process.env.DATABASE_URL?.startsWith('postgres') && process.env.REDIS_URL);
const EVENTS = 60;

describe.runIf(enabled)('webhook delivery with two instances on PostgreSQL', () => {
  let db: Awaited<ReturnType<typeof scratchPostgres>>;
  let a: ServerProcess;
  let b: ServerProcess;
  let rx: Receiver;

  beforeAll(async () => {
    db = await scratchPostgres();
    rx = await startReceiver({ status: 200, delayMs: 100 }); // slow answers keep claims in flight longer
    const env = {
      DATABASE_URL: db.url, REDIS_URL: process.env.REDIS_URL!, PUBLIC_URL: 'https://gatehouse.example', PUBLIC_RATE_LIMIT_PER_MINUTE: '1000',
      LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS: '1,1,1,1,1,1,1,1,1,1',
    };
    a = await startServer(env);
    b = await startServer(env);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await rx?.close();
    await db?.drop();
  });

  it(`delivers each of ${EVENTS} events exactly once while both instances compete for them`, async () => {
    const token = await signUpOver(a.base);
    expect((await postJson(b.base, '/v1/webhooks', { url: rx.url, events: ['agent.created'] }, token)).status).toBe(201);
    // A burst on both instances at once: each commit wakes its own instance's worker, so both
    // workers claim from the same due rows at the same moments, many times over.
    const created = await Promise.all(
      Array.from({ length: EVENTS }, (_, i) => postJson(i % 2 ? a.base : b.base, '/v1/agents', { name: `Agent ${i}`, model: 'm' }, token).then((r) => r.status)),
    );
    expect(created.every((s) => s === 201)).toBe(true);
    await rx.waitFor(() => new Set(rx.acceptedIds()).size === EVENTS, 30_000);
    await new Promise((r) => setTimeout(r, 3_000)); // room for a duplicate to show up, if there were one
    const ids = rx.acceptedIds();
    expect(ids).toHaveLength(EVENTS);
    expect(new Set(ids).size).toBe(EVENTS);

    // Every attempt recorded once: the attempt log matches each delivery's counter.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ attempts: number; logged: string; status: string }>(
        'select d.attempts, d.status, count(x.id) as logged from deliveries d left join delivery_attempts x on x.delivery_id = d.id group by d.id',
      );
      expect(rows).toHaveLength(EVENTS);
      for (const row of rows) {
        expect(row.status).toBe('delivered');
        expect(Number(row.logged)).toBe(row.attempts);
      }
      const answered = await client.query<{ n: string }>('select count(*) as n from delivery_attempts where status_code = 200');
      expect(Number(answered.rows[0]!.n)).toBe(EVENTS);
    } finally {
      await client.end();
    }
  }, 90_000);
});
