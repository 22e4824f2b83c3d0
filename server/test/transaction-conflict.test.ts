import Fastify from 'fastify';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { registerProblemHandlers } from '../src/http/problem.js';

/**
 * A transaction PostgreSQL rolls back because another one ran into it (a deadlock, a
 * serialization failure) is the server's timing, not the client's mistake: 503 with a short
 * Retry-After, never a 500. On PostgreSQL the error is a real deadlock between two connections;
 * embedded, an error with the same SQLSTATE stands in for it (SQLite has one writer: no deadlocks).
 */
async function deadlockError(url: string): Promise<unknown> {
  const table = `deadlock_${process.pid}_${Date.now()}`;
  const [a, b] = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })];
  await Promise.all([a.connect(), b.connect()]);
  try {
    await a.query(`CREATE TABLE ${table} (id int PRIMARY KEY, n int)`);
    await a.query(`INSERT INTO ${table} VALUES (1, 0), (2, 0)`);
    await Promise.all([a.query('BEGIN'), b.query('BEGIN')]);
    await a.query(`UPDATE ${table} SET n = 1 WHERE id = 1`);
    await b.query(`UPDATE ${table} SET n = 1 WHERE id = 2`);
    // Each now waits for the other's row: PostgreSQL picks one and fails it with 40P01.
    const outcomes = await Promise.allSettled([a.query(`UPDATE ${table} SET n = 2 WHERE id = 2`), b.query(`UPDATE ${table} SET n = 2 WHERE id = 1`)]);
    await Promise.all([a.query('ROLLBACK'), b.query('ROLLBACK')]);
    const failed = outcomes.find((o) => o.status === 'rejected');
    if (!failed) throw new Error('no deadlock happened');
    return failed.reason;
  } finally {
    await a.query(`DROP TABLE IF EXISTS ${table}`).catch(() => {});
    await Promise.all([a.end(), b.end()]);
  }
}

describe('a transaction lost to a concurrent one', () => {
  const app = Fastify();
  afterAll(() => app.close());

  it('is answered 503 service_unavailable with Retry-After, not 500', async () => {
    const error = process.env.DATABASE_URL
      ? await deadlockError(process.env.DATABASE_URL)
      : Object.assign(new Error('deadlock detected'), { code: '40P01' });
    expect((error as { code?: string }).code).toBe('40P01');
    registerProblemHandlers(app, { publicUrl: 'http://localhost', allowedMethods: () => [] });
    app.get('/collide', async () => {
      throw error;
    });
    const res = await app.inject({ method: 'GET', url: '/collide' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.headers['retry-after']).toBe('1');
    expect(res.json()).toMatchObject({ code: 'service_unavailable', status: 503 });
  });
});
