import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/kernel/ids.js';
import { isoTime } from '../../src/kernel/clock.js';
import { bucketOf, DAY_MS, HOUR_MS } from '../../src/access/usage/usage-buckets.js';
import { createUsageCounter, type UsageCounter } from '../../src/access/usage/usage-counter.js';
import { createUsageHistoryRepository } from '../../src/access/usage/usage-history.repository.js';
import { createUsageRetention } from '../../src/access/usage/usage-retention.js';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';
import { refuseInserts } from '../refuse-inserts.js';
import { countStatements } from '../statement-counter.js';

const MINUTE_MS = 60_000;
const ZERO = { ok: 0, rate_limited: 0, unauthorized: 0, forbidden: 0 };

/**
 * GET /v1/usage/history and the counter behind it (access/usage/). Counts are recorded here by
 * calling the counter, as the authenticate step does for every request. The requests this suite
 * makes may be counted too (into the bucket they are made in), so exact figures are checked on
 * buckets and keys no request of the suite touched.
 */
describe(`usage history (${dialect})`, () => {
  let t: TestApp;
  let counter: UsageCounter;
  beforeAll(async () => {
    // No timed flush during the suite: every write to usage_counts is one the test asked for.
    t = await createTestApp({ env: { USAGE_FLUSH_SECONDS: '300' } });
    counter = t.deps.usageCounter;
  });
  afterAll(() => t.close());

  /** Moves the clock forward to `at` (epoch ms). */
  const moveTo = (at: number) => {
    expect(at).toBeGreaterThanOrEqual(t.clock.now());
    t.clock.advance(at - t.clock.now());
  };

  /** A fresh account with keys (ids and secrets); the first is the reader (usage:read), which never expires. */
  async function account(keyNames: string[]) {
    const user = await t.signUp();
    const keys: { id: string; key: string }[] = [];
    for (const name of ['reader', ...keyNames]) {
      const res = await t.request({ method: 'POST', url: '/v1/api-keys', headers: bearer(user.tokens.access_token), payload: { name, scopes: ['usage:read'] } });
      expect(res.statusCode).toBe(201);
      keys.push({ id: res.json().id, key: res.json().key });
    }
    const [reader, ...rest] = keys;
    const history = (query: Record<string, string> = {}, as = reader!.key) =>
      t.request({ method: 'GET', url: '/v1/usage/history', query, headers: bearer(as) });
    // What the usage is counted under: the organization the keys act for, the user's personal one.
    const orgId = (await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(user.tokens.access_token) })).json().personal_organization_id as string;
    expect(orgId).toBe(await t.personalOrgId(user.id));
    return { user, orgId, reader: reader!, keys: rest, history };
  }

  const stored = (orgId: string, keyId: string, granularity: 'hour' | 'day') =>
    t.deps.database.db.selectFrom('usage_counts').select(['bucket_start', 'ok', 'rate_limited', 'unauthorized', 'forbidden'])
      .where('org_id', '=', orgId).where('key_id', '=', keyId).where('granularity', '=', granularity).orderBy('bucket_start').execute()
      .then((rows) => rows.map((r) => ({ bucket_start: r.bucket_start, ok: Number(r.ok), rate_limited: Number(r.rate_limited), unauthorized: Number(r.unauthorized), forbidden: Number(r.forbidden) })));

  it('reads back per hour and per day, per key and for the account, every bucket listed, oldest first', async () => {
    const { orgId, keys: [k1, k2], history } = await account(['k1', 'k2']);
    // Two hours at the end of a later day, then just past midnight.
    const day = bucketOf(t.clock.now(), 'day') + DAY_MS;
    moveTo(day + 22 * HOUR_MS + 5 * MINUTE_MS);
    for (let i = 0; i < 3; i++) counter.record(orgId, k1!.id, 'ok');
    counter.record(orgId, k1!.id, 'rate_limited');
    counter.record(orgId, null, 'ok');
    counter.record(orgId, null, 'ok');
    counter.record(orgId, k2!.id, 'forbidden');
    moveTo(day + 23 * HOUR_MS + 59 * MINUTE_MS);
    counter.record(orgId, k1!.id, 'unauthorized');
    counter.record(orgId, k1!.id, 'unauthorized');
    counter.record(orgId, null, 'forbidden');
    // Nothing flushed yet: the read flushes, after midnight. The counts keep the hour they were made in.
    moveTo(day + DAY_MS + 5 * MINUTE_MS);

    const hourly = await history({ key_id: k1!.id });
    expect(hourly.statusCode).toBe(200);
    const h = hourly.json();
    const hours = Array.from({ length: 24 }, (_, i) => isoTime(day + DAY_MS - (23 - i) * HOUR_MS));
    expect(h).toMatchObject({ granularity: 'hour', key_id: k1!.id, from: hours[0], to: hours[23] });
    expect(h.data).toEqual(hours.map((start) => ({
      start,
      ...(start === isoTime(day + 22 * HOUR_MS) ? { ...ZERO, ok: 3, rate_limited: 1 } : start === isoTime(day + 23 * HOUR_MS) ? { ...ZERO, unauthorized: 2 } : ZERO),
    })));

    const accountHourly = (await history()).json();
    expect(accountHourly).toMatchObject({ granularity: 'hour', key_id: null, from: hours[0], to: hours[23] });
    expect(accountHourly.data).toHaveLength(24);
    // The last hour holds this suite's own reads, should the authenticate step count them.
    expect(accountHourly.data.slice(0, 23)).toEqual(hours.slice(0, 23).map((start) => ({
      start,
      ...(start === isoTime(day + 22 * HOUR_MS) ? { ok: 5, rate_limited: 1, unauthorized: 0, forbidden: 1 } : start === isoTime(day + 23 * HOUR_MS) ? { ...ZERO, unauthorized: 2, forbidden: 1 } : ZERO),
    })));

    const daily = (await history({ granularity: 'day', key_id: k1!.id })).json();
    const days = Array.from({ length: 30 }, (_, i) => isoTime(day + DAY_MS - (29 - i) * DAY_MS));
    expect(daily).toMatchObject({ granularity: 'day', key_id: k1!.id, from: days[0], to: days[29] });
    expect(daily.data).toEqual(days.map((start) => ({ start, ...(start === isoTime(day) ? { ok: 3, rate_limited: 1, unauthorized: 2, forbidden: 0 } : ZERO) })));
    const k2Daily = (await history({ granularity: 'day', key_id: k2!.id })).json();
    expect(k2Daily.data[28]).toEqual({ start: isoTime(day), ...ZERO, forbidden: 1 });
    const accountDaily = (await history({ granularity: 'day' })).json();
    expect(accountDaily.data[28]).toEqual({ start: isoTime(day), ok: 5, rate_limited: 1, unauthorized: 2, forbidden: 2 });

    // from and to are truncated to their buckets, both included.
    const range = (await history({ key_id: k1!.id, from: isoTime(day + 22 * HOUR_MS + 30 * MINUTE_MS), to: isoTime(day + 23 * HOUR_MS + 59 * MINUTE_MS) })).json();
    expect(range).toEqual({
      granularity: 'hour', key_id: k1!.id, from: isoTime(day + 22 * HOUR_MS), to: isoTime(day + 23 * HOUR_MS),
      data: [{ start: isoTime(day + 22 * HOUR_MS), ...ZERO, ok: 3, rate_limited: 1 }, { start: isoTime(day + 23 * HOUR_MS), ...ZERO, unauthorized: 2 }],
    });
    // Without from: 24 hours back from `to`; a `to` later than now is now; an offset is understood.
    const back = (await history({ key_id: k1!.id, to: '2999-01-01T00:00:00+01:00' })).json();
    expect(back).toMatchObject({ from: hours[0], to: hours[23] });
    const offset = (await history({ key_id: k1!.id, from: isoTime(day + 22 * HOUR_MS).replace('22:00:00.000Z', '23:15:00+01:00'), to: isoTime(day + 22 * HOUR_MS) })).json();
    expect(offset.data).toEqual([{ start: isoTime(day + 22 * HOUR_MS), ...ZERO, ok: 3, rate_limited: 1 }]);
  });

  it('adds to what is stored: flushes from many instances sum up', async () => {
    const { orgId, keys: [k1], history } = await account(['k1']);
    const hour = bucketOf(t.clock.now(), 'hour') + HOUR_MS;
    moveTo(hour + MINUTE_MS);
    // A second instance on the same database: its own counter, the same rows.
    const other = createUsageCounter({ repo: createUsageHistoryRepository(t.deps.database.db, t.deps.database.dialect), clock: t.clock, flushMs: 3_600_000, onError: (e) => { throw e; } });
    counter.record(orgId, k1!.id, 'ok');
    other.record(orgId, k1!.id, 'ok');
    other.record(orgId, k1!.id, 'forbidden');
    await Promise.all([counter.flush(), other.flush()]);
    counter.record(orgId, k1!.id, 'ok');
    other.record(orgId, k1!.id, 'ok');
    await other.close();
    moveTo(hour + HOUR_MS + MINUTE_MS);
    const data = (await history({ key_id: k1!.id })).json().data;
    expect(data.at(-2)).toEqual({ start: isoTime(hour), ...ZERO, ok: 4, forbidden: 1 });
  });

  it('writes nothing when counting: one INSERT per flush, in one transaction', async () => {
    const { orgId, keys: [k1, k2] } = await account(['k1', 'k2']);
    await counter.flush();
    const statements = await countStatements(t.deps.database);
    try {
      const others = Array.from({ length: 50 }, () => newId('organization'));
      for (let i = 0; i < 20_000; i++) {
        counter.record(orgId, i % 3 === 0 ? k1!.id : i % 3 === 1 ? k2!.id : null, i % 7 === 0 ? 'rate_limited' : 'ok');
        if (i % 100 === 0) counter.record(others[i % 50]!, null, 'unauthorized'); // organizations that do not exist: dropped at the flush
      }
      // Anything record() started would have run by now.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(statements.touching('usage_counts')).toEqual([]);

      await counter.flush();
      const writes = statements.writes('usage_counts');
      expect(writes).toHaveLength(1);
      expect(writes[0]).toMatch(/^insert into "usage_counts"/i);
      expect(writes[0]).toMatch(/on conflict/i);
      // Inside one transaction: the last begin before it, the first commit after it.
      const all = statements.statements;
      const insertAt = all.indexOf(writes[0]!);
      expect(all.slice(0, insertAt).filter((s) => /^(begin|commit|rollback)\b/i.test(s)).at(-1)).toMatch(/^begin/i);
      expect(all.slice(insertAt + 1).find((s) => /^(begin|commit|rollback)\b/i.test(s))).toMatch(/^commit/i);
    } finally {
      statements.stop();
    }
    const keyDay = await stored(orgId, k1!.id, 'day');
    expect(keyDay.reduce((sum, r) => sum + r.ok + r.rate_limited, 0)).toBe(6667);
    const totalDay = await stored(orgId, '', 'day');
    expect(totalDay.reduce((sum, r) => sum + r.ok + r.rate_limited + r.unauthorized + r.forbidden, 0)).toBeGreaterThanOrEqual(20_000);
    const totalHour = await stored(orgId, '', 'hour');
    expect(totalHour.reduce((sum, r) => sum + r.rate_limited, 0)).toBeGreaterThanOrEqual(Math.ceil(20_000 / 7));
  });

  it('keeps the counts of a flush that failed, and writes them with the next', async () => {
    const { orgId: a } = await account([]);
    const { orgId: b } = await account([]);
    const [keyA, keyB] = [newId('apiKey'), newId('apiKey')];
    await counter.flush();
    const allow = await refuseInserts(t, 'usage_counts', 'org_id', a);
    try {
      counter.record(a, keyA, 'ok');
      counter.record(b, keyB, 'forbidden');
      await expect(counter.flush()).rejects.toThrow(/refused by test/);
      // Counted meanwhile: added to what was put back.
      counter.record(a, keyA, 'ok');
      expect(await stored(b, keyB, 'hour')).toEqual([]); // the whole batch failed, b's counts too
    } finally {
      await allow();
    }
    await counter.flush();
    const [keyHour] = await stored(a, keyA, 'hour');
    expect(keyHour).toMatchObject({ ok: 2, rate_limited: 0, unauthorized: 0, forbidden: 0 });
    expect((await stored(b, keyB, 'hour')).map((r) => r.forbidden)).toEqual([1]);
  });

  it('runs one flush at a time: concurrent flushes write every count once', async () => {
    const { orgId } = await account([]);
    const keyId = newId('apiKey');
    await counter.flush();
    const flushes: Promise<void>[] = [];
    for (let i = 0; i < 5; i++) {
      for (let j = 0; j < 10; j++) counter.record(orgId, keyId, 'ok');
      flushes.push(counter.flush());
    }
    await Promise.all(flushes);
    const rows = await stored(orgId, keyId, 'hour');
    expect(rows.reduce((sum, r) => sum + r.ok, 0)).toBe(50);
  });

  it('drops the counts of an account deleted before the flush (its rows went with it)', async () => {
    const gone = await account([]);
    const kept = await account([]);
    const keyId = newId('apiKey');
    await counter.flush();
    counter.record(gone.orgId, keyId, 'ok');
    counter.record(kept.orgId, keyId, 'ok');
    // Deleting the account deletes its personal organization, and the organization's rows with it.
    await t.deps.accountPurge.purgeAccount(gone.user.id);
    expect(await t.deps.database.db.selectFrom('organizations').select('id').where('id', '=', gone.orgId).execute()).toEqual([]);
    await counter.flush();
    await counter.flush(); // nothing was put back to fail again
    expect(await stored(gone.orgId, '', 'hour')).toEqual([]);
    expect((await stored(kept.orgId, keyId, 'day')).map((r) => r.ok)).toEqual([1]);
  });

  it('reads a deleted account once, not once per request, when its old token keeps calling', async () => {
    const gone = await account([]);
    await t.deps.accountPurge.purgeAccount(gone.user.id);
    const statements = await countStatements(t.deps.database);
    for (let i = 0; i < 5; i++) {
      const res = await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(gone.user.tokens.access_token) });
      expect(res.statusCode).toBe(401);
    }
    expect(statements.touching('users').length).toBeLessThanOrEqual(1);
    statements.stop();
  });

  it('counts a request to an organization the caller is not in once, as forbidden, in their own', async () => {
    const { user, orgId } = await account([]);
    const other = await account([]);
    const forbidden = async () => (await stored(orgId, '', 'day')).reduce((sum, row) => sum + row.forbidden, 0);
    await counter.flush();
    const before = await forbidden();
    const res = await t.request({ method: 'GET', url: `/v1/organizations/${other.orgId}`, headers: bearer(user.tokens.access_token) });
    expect(res.statusCode).toBe(404);
    await counter.flush();
    expect(await forbidden()).toBe(before + 1);
  });

  it('answers 404 for a key that is not one of the account\'s, and shows a revoked key\'s history', async () => {
    const mine = await account(['mine']);
    const theirs = await account(['theirs']);
    for (const keyId of [theirs.keys[0]!.id, newId('apiKey'), 'not-an-id', newId('agent')]) {
      const res = await mine.history({ key_id: keyId });
      expect(res.statusCode, keyId).toBe(404);
      expect(res.json().code).toBe('not_found');
    }
    const revoked = await t.request({ method: 'DELETE', url: `/v1/api-keys/${mine.keys[0]!.id}`, headers: bearer((await t.login(mine.user.email, mine.user.password)).access_token) });
    expect(revoked.statusCode).toBe(204);
    expect((await mine.history({ key_id: mine.keys[0]!.id })).statusCode).toBe(200);
  });

  it('refuses ranges it cannot show and malformed queries with 400', async () => {
    const { history } = await account([]);
    const now = t.clock.now();
    const hour = bucketOf(now, 'hour');
    const today = bucketOf(now, 'day');
    const refused = async (query: Record<string, string>, field: string, code: string) => {
      const res = await history(query);
      expect(res.statusCode, JSON.stringify(query)).toBe(400);
      expect(res.json()).toMatchObject({ code: 'validation_failed', errors: [{ field, code }] });
    };
    await refused({ from: isoTime(now - HOUR_MS), to: isoTime(now - 3 * HOUR_MS) }, 'query:/to', 'before_from');
    await refused({ from: isoTime(now + 2 * HOUR_MS) }, 'query:/from', 'in_future');
    await refused({ from: isoTime(hour - 168 * HOUR_MS) }, 'query:/from', 'beyond_retention');
    await refused({ to: isoTime(hour - 168 * HOUR_MS) }, 'query:/to', 'beyond_retention');
    await refused({ granularity: 'day', from: isoTime(today - 90 * DAY_MS) }, 'query:/from', 'beyond_retention');

    // The oldest allowed: 168 hours, 90 days (the current bucket included).
    const week = (await history({ from: isoTime(hour - 167 * HOUR_MS) })).json();
    expect(week.data).toHaveLength(168);
    expect(week.data[0].start).toBe(isoTime(hour - 167 * HOUR_MS));
    expect(week.data.at(-1).start).toBe(isoTime(hour));
    expect((await history({ granularity: 'day', from: isoTime(today - 89 * DAY_MS) })).json().data).toHaveLength(90);
    // from within the current bucket: one bucket.
    expect((await history({ from: isoTime(now) })).json().data).toHaveLength(1);

    const malformed: Record<string, string>[] = [{ granularity: 'week' }, { from: 'yesterday' }, { to: '2026-13-01T00:00:00Z' }, { key: 'x' }, { key_id: 'k'.repeat(65) }];
    for (const query of malformed) {
      const res = await history(query);
      expect(res.statusCode, JSON.stringify(query)).toBe(400);
      expect(res.json().code).toBe('validation_failed');
    }
  });

  it('prunes hour buckets after 7 days and day buckets after 90', async () => {
    const { orgId } = await account([]);
    const repo = createUsageHistoryRepository(t.deps.database.db, t.deps.database.dialect);
    const now = t.clock.now();
    const hour = bucketOf(now, 'hour');
    const today = bucketOf(now, 'day');
    const row = (granularity: 'hour' | 'day', start: number) => ({ org_id: orgId, key_id: 'key_x', granularity, bucket_start: isoTime(start), ok: 1, rate_limited: 0, unauthorized: 0, forbidden: 0 });
    await repo.add([
      row('hour', hour - 168 * HOUR_MS), row('hour', hour - 167 * HOUR_MS), row('hour', hour - 200 * HOUR_MS),
      row('day', today - 90 * DAY_MS), row('day', today - 89 * DAY_MS), row('day', today - 400 * DAY_MS),
    ]);
    const pruned = await createUsageRetention({ repo, clock: t.clock, onError: (e) => { throw e; } }).pruneOnce();
    expect(pruned).toBeGreaterThanOrEqual(4);
    expect((await stored(orgId, 'key_x', 'hour')).map((r) => r.bucket_start)).toEqual([isoTime(hour - 167 * HOUR_MS)]);
    expect((await stored(orgId, 'key_x', 'day')).map((r) => r.bucket_start)).toEqual([isoTime(today - 89 * DAY_MS)]);
  });

  it('is in the OpenAPI document, spending no budget', async () => {
    const doc = (await t.request({ method: 'GET', url: '/v1/openapi.json' })).json();
    const op = doc.paths['/v1/usage/history'].get;
    expect(op).toMatchObject({ operationId: 'getUsageHistory', tags: ['Account'], 'x-gatehouse-auth': { requires: 'usage:read', spends_budget: false } });
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '404']));
    expect(doc.components.schemas.UsageHistory).toBeDefined();
  });
});
