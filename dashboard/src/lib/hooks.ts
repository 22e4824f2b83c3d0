import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { PRODUCT_NAME } from './product-name.ts';
import { describeError, type ErrorView } from './errors.ts';

/** A call started by the user (a form, a button): busy while it runs, its error afterwards. */
export function useAction<A extends unknown[], R>(fn: (...args: A) => Promise<R>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorView | null>(null);
  const running = useRef(false);
  const fnRef = useRef(fn);
  fnRef.current = fn;
  const run = useCallback(async (...args: A): Promise<R | undefined> => {
    if (running.current) return undefined; // a second Enter or click while the first runs
    running.current = true;
    setBusy(true);
    setError(null);
    try {
      return await fnRef.current(...args);
    } catch (e) {
      setError(describeError(e));
      return undefined;
    } finally {
      running.current = false;
      setBusy(false);
    }
  }, []);
  return { run, busy, error, setError };
}

/** Data loaded when a page opens; `reload` after a change. */
export function useResource<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ErrorView | null>(null);
  const [loading, setLoading] = useState(true);
  const loadRef = useRef(load);
  loadRef.current = load;
  const generation = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const value = await loadRef.current();
      if (mine === generation.current) {
        setData(value);
        setError(null);
      }
    } catch (e) {
      if (mine === generation.current) setError(describeError(e));
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, []);
  useEffect(() => {
    void reload();
    return () => void generation.current++;
  }, deps);
  return { data, error, loading, reload, setData };
}

/** Sets the document title and moves focus to the page's heading, so a route change is announced. */
export function usePageFocus(title: string) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · ${PRODUCT_NAME}`;
    // Keep focus where it is when the user is already inside the page (e.g. typing in a form).
    if (document.activeElement === document.body || document.activeElement === null || document.activeElement?.closest('nav')) {
      heading.current?.focus({ preventScroll: true });
    }
  }, [title]);
  return heading;
}

interface PageOf<T> {
  data: T[];
  next_cursor: string | null;
}

/** A cursor-paged list: the first page on open, `more()` appends the next one. */
export function usePagedList<T>(fetchPage: (cursor: string | undefined) => Promise<PageOf<T>>) {
  const first = useResource(() => fetchPage(undefined));
  const [extra, setExtra] = useState<{ rows: T[]; cursor: string | null } | null>(null);
  const more = useAction(async () => {
    const cursor = extra ? extra.cursor : first.data?.next_cursor;
    if (!cursor) return;
    const page = await fetchPage(cursor);
    setExtra({ rows: [...(extra?.rows ?? []), ...page.data], cursor: page.next_cursor });
  });
  const rows = [...(first.data?.data ?? []), ...(extra?.rows ?? [])];
  const nextCursor = extra ? extra.cursor : first.data?.next_cursor ?? null;
  return {
    rows,
    loaded: first.data !== null,
    loading: first.loading,
    error: first.error ?? more.error,
    hasMore: nextCursor !== null,
    loadingMore: more.busy,
    more: () => void more.run(),
    reload: async () => {
      setExtra(null);
      await first.reload();
    },
  };
}
