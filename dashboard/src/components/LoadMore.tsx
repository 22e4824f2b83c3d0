export function LoadMore({ list }: { list: { hasMore: boolean; loadingMore: boolean; more: () => void } }) {
  if (!list.hasMore) return null;
  return (
    <div class="actions">
      <button type="button" class="button button-secondary" aria-disabled={list.loadingMore ? 'true' : undefined} onClick={list.more}>
        {list.loadingMore ? 'Loading…' : 'Show more'}
      </button>
    </div>
  );
}
