import type { Inspector } from './storage.js';

/**
 * What must hold in the database whatever moment the process died at: every foreign key points
 * at a row, every transaction is all or nothing (a session has its refresh token, a created agent
 * or key has exactly its outbox event and an event its row), every user row is whole. Returns
 * the violations found, so a failure names them all.
 */
export async function storageViolations(db: Inspector): Promise<string[]> {
  const violations: string[] = [];
  if (db.dialect === 'sqlite') {
    const integrity = await db.all<{ integrity_check: string }>('pragma integrity_check');
    if (integrity.map((r) => r.integrity_check).join() !== 'ok') violations.push(`integrity_check: ${JSON.stringify(integrity)}`);
    const fkCheck = await db.all('pragma foreign_key_check');
    if (fkCheck.length > 0) violations.push(`foreign_key_check: ${JSON.stringify(fkCheck.slice(0, 5))}`);
  }
  const keys = await foreignKeys(db);
  // Read from the catalogue so a new table is covered too; an empty list would check nothing.
  if (keys.length < 10) violations.push(`only ${keys.length} foreign keys found: ${JSON.stringify(keys)}`);
  for (const fk of keys) {
    const [row] = await db.all<{ n: number | string }>(
      `select count(*) as n from ${fk.child} c where c.${fk.col} is not null and not exists (select 1 from ${fk.parent} p where p.${fk.pcol} = c.${fk.col})`,
    );
    if (Number(row?.n) > 0) violations.push(`${row?.n} ${fk.child} rows whose ${fk.col} has no ${fk.parent}`);
  }
  const [tokenless] = await db.all<{ n: number | string }>('select count(*) as n from sessions s where not exists (select 1 from refresh_tokens r where r.session_id = s.id)');
  if (Number(tokenless?.n) > 0) violations.push(`${tokenless?.n} sessions without a refresh token`);
  const [hashless] = await db.all<{ n: number | string }>(`select count(*) as n from users where password_hash not like '$argon2id$%'`);
  if (Number(hashless?.n) > 0) violations.push(`${hashless?.n} users without an argon2id password hash`);
  violations.push(...(await outboxViolations(db, 'agents', 'agent.created')), ...(await outboxViolations(db, 'api_keys', 'api_key.created')));
  return violations;
}

interface ForeignKey {
  child: string;
  col: string;
  parent: string;
  pcol: string;
}

async function foreignKeys(db: Inspector): Promise<ForeignKey[]> {
  if (db.dialect === 'sqlite') {
    return db.all<ForeignKey>(
      `select m.name as child, f."from" as col, f."table" as parent, f."to" as pcol
       from sqlite_master m join pragma_foreign_key_list(m.name) f where m.type = 'table'`,
    );
  }
  return db.all<ForeignKey>(
    `select cl.relname as child, a.attname as col, pcl.relname as parent, pa.attname as pcol
     from pg_constraint c
     join pg_class cl on cl.oid = c.conrelid
     join pg_namespace n on n.oid = cl.relnamespace
     join pg_class pcl on pcl.oid = c.confrelid
     join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
     join pg_attribute pa on pa.attrelid = c.confrelid and pa.attnum = c.confkey[1]
     where c.contype = 'f' and n.nspname = current_schema()`,
  );
}

/** The load never deletes, so each row has exactly one creation event and each event its row. */
async function outboxViolations(db: Inspector, table: 'agents' | 'api_keys', type: string): Promise<string[]> {
  const rows = new Set((await db.all<{ id: string }>(`select id from ${table}`)).map((r) => r.id));
  const events = (await db.all<{ data: string }>(`select data from events where type = '${type}'`)).map((e) => (JSON.parse(e.data) as { id: string }).id);
  const violations: string[] = [];
  const seen = new Set<string>();
  for (const id of events) {
    if (seen.has(id)) violations.push(`${type} recorded twice for ${id}`);
    seen.add(id);
    if (!rows.has(id)) violations.push(`${type} event for ${id}, which is not in ${table}`);
  }
  for (const id of rows) if (!seen.has(id)) violations.push(`${table} row ${id} without its ${type} event`);
  return violations;
}
