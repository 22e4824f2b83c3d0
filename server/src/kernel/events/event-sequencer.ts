import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { preparedQuery } from '../db/prepared-queries.js';

const firstPending = preparedQuery((q, $: { orgId: string }) => q.selectFrom('events').select('id').where('org_id', '=', $.orgId).where('seq', 'is', null).limit(1));
const counterOf = preparedQuery((q, $: { orgId: string }) => q.selectFrom('event_sequences').select('seq').where('org_id', '=', $.orgId));
// An upsert that changes nothing but locks the organization's counter row until the commit.
const lockCounter = preparedQuery((q, $: { orgId: string }) =>
  q.insertInto('event_sequences').values({ org_id: $.orgId, seq: 0 })
    .onConflict((oc) => oc.column('org_id').doUpdateSet((eb) => ({ seq: eb.ref('event_sequences.seq') })))
    .returning('seq'));
/** Events numbered per transaction: a long backlog (an organization's first stream) goes in steps. */
const DEFAULT_BATCH = 5_000;
const setCounter = preparedQuery((q, $: { orgId: string; seq: number }) => q.updateTable('event_sequences').set({ seq: $.seq }).where('org_id', '=', $.orgId));

/**
 * Numbers an organization's events 1, 2, 3… in the order they are seen committed, for live
 * streams to resume by (`seq > Last-Event-ID`). Writes leave `seq` null and take no lock for it,
 * so an organization's writes never queue behind each other for a number; the number is given
 * here, by the streams that need it, to everything committed and not numbered yet, under the
 * organization's counter row lock (one numbering at a time per organization, on any instance).
 * An event committed after a numbering gets a higher number from the next, so "every event up to
 * N" never grows later, and no number is given twice. Among the events one numbering finds, the
 * order is the order of insertion (PostgreSQL's `insert_no` sequence, SQLite's rowid), which keeps
 * the order of writes that wait for each other's rows: two deltas of one message, two messages of
 * one chat.
 */
export function createEventSequencer(deps: { db: Kysely<Database>; dialect: DialectName; batch?: number }) {
  const { db, dialect } = deps;
  const BATCH = deps.batch ?? DEFAULT_BATCH;
  const insertionOrder = dialect === 'postgres' ? sql.ref('insert_no') : sql.ref('rowid');
  // PostgreSQL: lock the rows to number first, so one that retention deletes meanwhile drops out
  // before the numbers are counted (SQLite runs one writer at a time).
  const lockRows = dialect === 'postgres' ? sql`FOR UPDATE` : sql``;

  /** Up to BATCH of the oldest pending events, in one transaction. */
  function numberSome(orgId: string): Promise<{ last: number; numbered: number }> {
    return db.transaction().execute(async (trx) => {
      const current = Number((await lockCounter.first({ orgId }, trx))!.seq);
      const result = await sql`
        UPDATE events SET seq = numbered.n
        FROM (
          SELECT id, ${current} + row_number() OVER (ORDER BY ${insertionOrder}) AS n
          FROM (SELECT id, ${insertionOrder} FROM events WHERE org_id = ${orgId} AND seq IS NULL ORDER BY ${insertionOrder} LIMIT ${BATCH} ${lockRows}) AS oldest
        ) AS numbered
        WHERE events.id = numbered.id
        RETURNING events.seq`.execute(trx);
      // The highest number given, not current + rows: a number is never handed out twice.
      const last = result.rows.reduce<number>((max, row) => Math.max(max, Number((row as { seq: unknown }).seq)), current);
      if (last > current) await setCounter.run({ orgId, seq: last }, trx);
      return { last, numbered: result.rows.length };
    });
  }

  return {
    /** Numbers what is committed and not numbered yet; the organization's last number afterwards. */
    async sequence(orgId: string): Promise<number> {
      if (!(await firstPending.first({ orgId }, db))) return Number((await counterOf.first({ orgId }, db))?.seq ?? 0);
      for (;;) {
        const { last, numbered } = await numberSome(orgId);
        if (numbered < BATCH) return last;
      }
    },
  };
}
export type EventSequencer = ReturnType<typeof createEventSequencer>;

/** The highest number given so far to the organization's events (0: none); it never goes back. */
export async function lastNumberGiven(db: Kysely<Database>, orgId: string): Promise<number> {
  return Number((await counterOf.first({ orgId }, db))?.seq ?? 0);
}
