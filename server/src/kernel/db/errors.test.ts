import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable, isTransactionConflict } from './errors.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['refused', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['reset', withCode('read ECONNRESET', 'ECONNRESET')],
    ['dropped mid-query (pg)', new Error('Connection terminated unexpectedly')],
    ['pool connect timeout (pg)', new Error('timeout exceeded when trying to connect')],
    ['admin shutdown', withCode('terminating connection due to administrator command', '57P01')],
    ['still starting', withCode('the database system is starting up', '57P03')],
    ['connection exception class', withCode('connection failure', '08006')],
    ['too many connections', withCode('sorry, too many clients already', '53300')],
    ['SQLite lock held past busy_timeout', withCode('database is locked', 'SQLITE_BUSY')],
  ])('is true when the database is %s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', withCode('duplicate key', '23505')],
    ['a syntax error', withCode('syntax error at or near', '42601')],
    ['a SQLite constraint', withCode('UNIQUE constraint failed', 'SQLITE_CONSTRAINT_UNIQUE')],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['not an error', 'ECONNREFUSED'],
  ])('is false for %s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('isTransactionConflict', () => {
  it.each([
    ['a deadlock', withCode('deadlock detected', '40P01')],
    ['a serialization failure', withCode('could not serialize access due to concurrent update', '40001')],
  ])('is true for %s', (_, error) => {
    expect(isTransactionConflict(error)).toBe(true);
  });

  it.each([
    ['a unique violation', withCode('duplicate key', '23505')],
    ['an unreachable database', withCode('read ECONNRESET', 'ECONNRESET')],
    ['not an error', null],
  ])('is false for %s', (_, error) => {
    expect(isTransactionConflict(error)).toBe(false);
  });
});
