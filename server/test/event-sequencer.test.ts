import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../src/kernel/events/event-outbox.js';
import { createEventSequencer } from '../src/kernel/events/event-sequencer.js';
import { createTestApp, dialect, type TestApp } from './harness.js';

/** The numbering live streams resume by, on the database itself (SQLite, or PostgreSQL with DATABASE_URL). */
describe(`event numbering (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const seqs = async (orgId: string) =>
    (await t.deps.database.db.selectFrom('events').select(['seq', 'data']).where('org_id', '=', orgId).orderBy('seq').execute())
      .filter((e) => e.seq !== null && JSON.parse(e.data).n !== undefined)
      .map((e) => [Number(e.seq), JSON.parse(e.data).n as number]);

  it('numbers committed events 1, 2, 3… in insertion order, in steps, and never renumbers', async () => {
    const user = await t.register();
    const orgId = await t.personalOrgId(user.id); // events are numbered per organization; recordEvent's userId means the personal one
    const { db } = t.deps.database;
    const record = (n: number) => db.transaction().execute((trx) => recordEvent(trx, t.clock, { userId: user.id, type: 'agent.updated', data: { n } }));
    const sequencer = createEventSequencer({ db, dialect: t.deps.database.dialect, batch: 3 });
    const before = await sequencer.sequence(orgId); // the sign-up's own events, if any
    for (let n = 1; n <= 7; n++) await record(n);
    expect(await sequencer.sequence(orgId)).toBe(before + 7);
    expect(await seqs(orgId)).toEqual([1, 2, 3, 4, 5, 6, 7].map((n) => [before + n, n]));

    for (let n = 8; n <= 9; n++) await record(n);
    expect(await sequencer.sequence(orgId)).toBe(before + 9);
    expect(await sequencer.sequence(orgId)).toBe(before + 9); // nothing pending: nothing changes
    expect(await seqs(orgId)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => [before + n, n]));
  });

  it('gives each event one number when numberings race', async () => {
    const user = await t.register();
    const orgId = await t.personalOrgId(user.id); // events are numbered per organization; recordEvent's userId means the personal one
    const { db } = t.deps.database;
    const sequencer = createEventSequencer({ db, dialect: t.deps.database.dialect, batch: 2 });
    const before = await sequencer.sequence(orgId);
    const writes = Array.from({ length: 20 }, (_, n) => db.transaction().execute((trx) => recordEvent(trx, t.clock, { userId: user.id, type: 'agent.updated', data: { n } })));
    const numberings = Array.from({ length: 5 }, () => sequencer.sequence(orgId));
    await Promise.all([...writes, ...numberings]);
    expect(await sequencer.sequence(orgId)).toBe(before + 20);
    const numbered = (await seqs(orgId)).map(([seq]) => seq);
    expect(numbered).toEqual(Array.from({ length: 20 }, (_, i) => before + i + 1));
  });
});
