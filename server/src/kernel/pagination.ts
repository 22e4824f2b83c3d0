import { isId, type IdKind } from './ids.js';
import { AppError } from './errors.js';

/**
 * Cursor pagination: ids are time-sortable, so a cursor is simply the last id of the
 * previous page and "newest first" is `id < cursor ORDER BY id DESC`. Rows inserted meanwhile
 * land before the first page, never inside a later one.
 */
export function assertCursor(kind: IdKind, cursor: string | undefined): void {
  if (cursor !== undefined && !isId(kind, cursor)) {
    throw new AppError('validation_failed', 'cursor is not valid.', { errors: [{ field: 'query:/cursor', code: 'invalid_format', message: 'cursor is not valid.' }] });
  }
}

/** Repositories fetch limit + 1 rows; the extra one only says whether a next page exists. */
export function toPage<T extends { id: string }>(rows: T[], limit: number): { rows: T[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  return { rows: page, nextCursor: rows.length > limit ? page[page.length - 1]!.id : null };
}
