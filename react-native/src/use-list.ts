import type { Page } from '@gatehouse/sdk';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useGatehouseContext } from './provider.js';
import type { SessionStatus } from './session-controller.js';

export interface ListState<T> {
  /** Newest first, as the API lists them; `loadMore` appends older ones. */
  items: T[];
  /** The first page is on its way (also after `refresh`). */
  loading: boolean;
  loadingMore: boolean;
  error: unknown;
  hasMore: boolean;
  loadMore(): Promise<void>;
  refresh(): Promise<void>;
}

/**
 * One paginated list: the first page once signed in (`loading` meanwhile; empty when signed
 * out), older pages on `loadMore`, a fresh first page on `refresh` and when the app returns to the
 * foreground. Answers of a list that has since been refreshed or unmounted are dropped.
 */
export function useList<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>, deps: readonly unknown[], session: SessionStatus): ListState<T> & { setItems(update: (items: T[]) => T[]): void } {
  const enabled = session === 'signed-in';
  const { controller } = useGatehouseContext();
  const [items, setItems] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(session !== 'signed-out');
  const [loadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const generation = useRef(0);
  const fetchRef = useRef(fetchPage);
  fetchRef.current = fetchPage;

  const refresh = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const page = await fetchRef.current(undefined);
      if (mine !== generation.current) return;
      setItems(page.data);
      setCursor(page.next_cursor);
      setError(null);
    } catch (failure) {
      if (mine === generation.current) setError(failure);
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, []);

  // A ref, not the state: two calls in one tick (FlatList's onEndReached can do that) see the same
  // state, and both would fetch the same page.
  const loadingMoreNow = useRef(false);
  const loadMore = useCallback(async () => {
    if (cursor === null || loadingMoreNow.current) return;
    loadingMoreNow.current = true;
    const mine = generation.current;
    setLoadingMore(true);
    try {
      const page = await fetchRef.current(cursor);
      if (mine !== generation.current) return;
      setItems((current) => [...current, ...page.data]);
      setCursor(page.next_cursor);
      setError(null);
    } catch (failure) {
      if (mine === generation.current) setError(failure);
    } finally {
      loadingMoreNow.current = false;
      setLoadingMore(false);
    }
  }, [cursor]);

  useEffect(() => {
    if (!enabled) {
      generation.current++;
      setItems([]);
      setCursor(null);
      setError(null);
      setLoading(session === 'loading');
      return;
    }
    void refresh();
    const stop = controller.onForeground(() => void refresh());
    return () => {
      generation.current++;
      stop();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [controller, refresh, enabled, session, ...deps]);

  return { items, loading, loadingMore, error, hasMore: cursor !== null, loadMore, refresh, setItems };
}
