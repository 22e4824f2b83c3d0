/**
 * Collects what one turn of the event loop asks for and hands it over together, in chunks of at
 * most `maxBatch`: setImmediate runs after every request that arrived in this turn has asked. The
 * Redis limiters send each chunk as one script call, so the server pays one command, one promise
 * and one reply per batch instead of per request.
 */
export function batchPerTurn<T>(send: (batch: T[]) => void, maxBatch: number): (item: T) => void {
  let queue: T[] = [];
  let scheduled = false;
  function flush(): void {
    scheduled = false;
    const batch = queue;
    queue = [];
    for (let i = 0; i < batch.length; i += maxBatch) send(batch.slice(i, i + maxBatch));
  }
  return (item) => {
    queue.push(item);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
}
