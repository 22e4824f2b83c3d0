/**
 * Lists answer `{ data, next_cursor }`, newest first. paginate() walks every page lazily, so a
 * `break` stops fetching:
 *
 *   for await (const agent of paginate((cursor) => gh.agents.list({ cursor, limit: 100 }))) { … }
 */
import type { Page } from './operations.js';

export async function* paginate<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* page.data;
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
}

/** Every item of every page in one array (mind the size of what you ask for). */
export async function collect<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of paginate(fetchPage)) items.push(item);
  return items;
}
