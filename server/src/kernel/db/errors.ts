/** True when a write failed on a unique constraint, in either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Socket failures while reaching the database server (the pool reports them as they come). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * PostgreSQL SQLSTATEs that mean "not now" rather than "wrong request": class 08 (connection
 * exception), 53300 (too many connections), 57P01–57P03 (shut down, crashed, still starting).
 */
const UNAVAILABLE_SQLSTATE = /^(08\w{3}|53300|57P0[123])$/;

/** pg's own errors carry no code; these messages are how it says the connection is gone. */
const PG_CONNECTION_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed)/;

/**
 * True when the database could not be reached or dropped the connection: the request was fine
 * and may succeed later, so it becomes 503 service_unavailable with Retry-After, never a 500.
 * SQLITE_BUSY is the embedded equivalent: another writer held the lock past busy_timeout.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code) || code === 'SQLITE_BUSY') return true;
  }
  return PG_CONNECTION_MESSAGES.test(error.message);
}

/**
 * PostgreSQL gave up on a transaction because of another one running at the same moment:
 * 40P01 (deadlock detected, one side is chosen and rolled back) and 40001 (serialization
 * failure). The transaction that failed wrote nothing and the request was fine, so it is a 503
 * with a short Retry-After, never a 500. (Each is also a hint of two transactions taking locks
 * in different orders: the failure log writes it at error level, once per 10 s with the count.)
 */
export function isTransactionConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}
