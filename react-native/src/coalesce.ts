/**
 * Runs `task` on request, one run at a time and at most once per `intervalMs`: requests that come
 * in meanwhile are folded into one more run afterwards. For work that catches up with a burst of
 * changes (each stream delta of a message whose text has to be fetched again) without one
 * request per change.
 */
export interface Coalescer {
  request(): void;
  /** No run starts afterwards. */
  dispose(): void;
}

export function coalesce(task: () => Promise<void>, intervalMs: number, now: () => number = Date.now): Coalescer {
  let running = false;
  let pending = false;
  let disposed = false;
  let lastStart = -Infinity;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const run = () => {
    timer = undefined;
    if (disposed) return;
    const wait = lastStart + intervalMs - now();
    if (wait > 0) {
      timer = setTimeout(run, wait);
      return;
    }
    pending = false;
    running = true;
    lastStart = now();
    task()
      .catch(() => undefined) // the next request tries again
      .finally(() => {
        running = false;
        if (pending && !disposed) run();
      });
  };

  return {
    request() {
      if (disposed) return;
      pending = true;
      if (!running && timer === undefined) run();
    },
    dispose() {
      disposed = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
