import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../../infra/db/database.js';
import type { Database } from '../../infra/db/schema.js';
import { preparedQuery } from '../../infra/db/prepared-queries.js';

const firstPending = preparedQuery((q, $: { userId: string }) => q.selectFrom('events').select('id').where('user_id', '=', $.userId).where('seq', 'is', null).limit(1));
const counterOf = preparedQuery((q, $: { userId: string }) => q.selectFrom('event_sequences').select('seq').where('user_id', '=', $.userId));
// An upsert that changes nothing but locks the account's counter row until the commit.
const lockCounter = preparedQuery((q, $: { userId: string }) =>
  q.insertInto('event_sequences').values({ user_id: $.userId, seq: 0 })
    .onConflict((oc) => oc.column('user_id').doUpdateSet((eb) => ({ seq: eb.ref('event_sequences.seq') })))
    .returning('seq'));
/** Events numbered per transaction: a long backlog (an account's first stream) goes in steps. */
const DEFAULT_BATCH = 5_000;
const setCounter = preparedQuery((q, $: { userId: string; seq: number }) => q.updateTable('event_sequences').set({ seq: $.seq }).where('user_id', '=', $.userId));

/**
 * Numbers an account's events 1, 2, 3… in the order they are seen committed, for live streams to
 * resume by (`seq > Last-Event-ID`). Writes leave `seq` null and take no lock for it, so an
 * account's writes never queue behind each other for a number; the number is given here, by the
 * streams that need it, to everything committed and not numbered yet, under the account's counter
 * row lock (one numbering at a time per account, on any instance). An event committed after a
 * numbering gets a higher number from the next, so "every event up to N" never grows later, and
 * no number is given twice. Among the events one numbering finds, the order is the order of
 * insertion (PostgreSQL's `insert_no` sequence, SQLite's rowid), which keeps the order of writes
 * that wait for each other's rows: two deltas of one message, two messages of one chat.
 */
export function createEventSequencer(deps: { db: Kysely<Database>; dialect: DialectName; batch?: number }) {
  const { db, dialect } = deps;
  const BATCH = deps.batch ?? DEFAULT_BATCH;
  const insertionOrder = dialect === 'postgres' ? sql.ref('insert_no') : sql.ref('rowid');
  // PostgreSQL: lock the rows to number first, so one that retention deletes meanwhile drops out
  // before the numbers are counted (SQLite runs one writer at a time).
  const lockRows = dialect === 'postgres' ? sql`FOR UPDATE` : sql``;

  /** Up to BATCH of the oldest pending events, in one transaction. */
  function numberSome(userId: string): Promise<{ last: number; numbered: number }> {
    return db.transaction().execute(async (trx) => {
      const current = Number((await lockCounter.first({ userId }, trx))!.seq);
      const result = await sql`
        UPDATE events SET seq = numbered.n
        FROM (
          SELECT id, ${current} + row_number() OVER (ORDER BY ${insertionOrder}) AS n
          FROM (SELECT id, ${insertionOrder} FROM events WHERE user_id = ${userId} AND seq IS NULL ORDER BY ${insertionOrder} LIMIT ${BATCH} ${lockRows}) AS oldest
        ) AS numbered
        WHERE events.id = numbered.id
        RETURNING events.seq`.execute(trx);
      // The highest number given, not current + rows: a number is never handed out twice.
      const last = result.rows.reduce<number>((max, row) => Math.max(max, Number((row as { seq: unknown }).seq)), current);
      if (last > current) await setCounter.run({ userId, seq: last }, trx);
      return { last, numbered: result.rows.length };
    });
  }

  return {
    /** Numbers what is committed and not numbered yet; the account's last number afterwards. */
    async sequence(userId: string): Promise<number> {
      if (!(await firstPending.first({ userId }, db))) return Number((await counterOf.first({ userId }, db))?.seq ?? 0);
      for (;;) {
        const { last, numbered } = await numberSome(userId);
        if (numbered < BATCH) return last;
      }
    },
  };
}
export type EventSequencer = ReturnType<typeof createEventSequencer>;
