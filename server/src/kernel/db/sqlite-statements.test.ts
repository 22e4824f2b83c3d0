import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { withPreparedStatements } from './sqlite-statements.js';

describe('withPreparedStatements', () => {
  it('prepares each SQL text once, and a fresh statement while one is still iterating', () => {
    const sqlite = new SQLite(':memory:');
    sqlite.exec('create table t (n integer); insert into t values (1), (2), (3)');
    const db = withPreparedStatements(sqlite);
    const first = db.prepare('select n from t where n > ?');
    expect(db.prepare('select n from t where n > ?')).toBe(first);
    expect((first as unknown as SQLite.Statement).all(1)).toEqual([{ n: 2 }, { n: 3 }]);
    const iterating = (first as unknown as SQLite.Statement).iterate(0);
    iterating.next();
    const other = db.prepare('select n from t where n > ?');
    expect(other).not.toBe(first);
    expect((other as unknown as SQLite.Statement).all(2)).toEqual([{ n: 3 }]);
    iterating.return?.();
    db.close();
    expect(sqlite.open).toBe(false);
  });
});
