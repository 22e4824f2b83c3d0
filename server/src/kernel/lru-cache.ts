/**
 * A bounded cache that forgets entries not used recently, built for the request hot path.
 *
 * Two generations (the "quick-lru" scheme): new and recently read entries live in `recent`;
 * when it reaches `maxEntries` it becomes `older` and a fresh `recent` starts. A read that hits
 * `recent` is a single Map lookup: no delete-and-reinsert per hit, which in V8 leaves a
 * tombstone in the Map each time and was a measurable share of every authenticated request.
 * A hit in `older` moves the entry back to `recent`. Entries untouched for a whole generation
 * are dropped with it. At most 2 × maxEntries entries are held.
 */
export class LruCache<K, V> {
  private recent = new Map<K, V>();
  private older = new Map<K, V>();
  constructor(private readonly maxEntries: number) {
    if (!(maxEntries >= 1)) throw new RangeError('maxEntries must be at least 1');
  }

  get(key: K): V | undefined {
    const value = this.recent.get(key);
    if (value !== undefined) return value;
    const old = this.older.get(key);
    if (old !== undefined) {
      this.older.delete(key);
      this.insert(key, old);
    }
    return old;
  }

  set(key: K, value: V): void {
    if (this.recent.has(key)) {
      this.recent.set(key, value);
      return;
    }
    this.older.delete(key);
    this.insert(key, value);
  }

  delete(key: K): void {
    this.recent.delete(key);
    this.older.delete(key);
  }

  /** Drops every entry `doomed` says so of (a periodic sweep, never the request path). */
  deleteWhere(doomed: (value: V, key: K) => boolean): void {
    for (const generation of [this.recent, this.older]) {
      for (const [key, value] of generation) if (doomed(value, key)) generation.delete(key);
    }
  }

  clear(): void {
    this.recent.clear();
    this.older.clear();
  }

  get size(): number {
    return this.recent.size + this.older.size;
  }

  private insert(key: K, value: V): void {
    this.recent.set(key, value);
    if (this.recent.size >= this.maxEntries) {
      this.older = this.recent;
      this.recent = new Map();
    }
  }
}
