import { executionAsyncResource } from 'node:async_hooks';

/**
 * Keeps one of Node's `process.nextTick` records alive for the life of the process, so that V8's
 * type feedback for the object literal inside `process.nextTick` stays monomorphic.
 *
 * Why: Node 20's `nextTick` builds `{ [async_id_symbol], [trigger_async_id_symbol], callback, args }`
 * for every call. V8 remembers the hidden classes (maps) of that literal weakly. When a full GC runs
 * while no such record is alive (a server idle after start: V8's memory reducer collects then), those
 * maps die, and the next calls turn three of the literal's property definitions MEGAMORPHIC for good:
 * every later `nextTick` defines them through the runtime. Node's HTTP server calls `nextTick`
 * several times per request, so such a process spent ~25% more CPU on a small authenticated GET for
 * its whole life (docs/PERFORMANCE.md, "The idle-GC state"); which processes it hit depended on
 * whether a full GC came before the first requests. One live record keeps its map chain (and so the
 * feedback's maps) alive; it costs a few dozen bytes.
 *
 * `executionAsyncResource()` inside a `nextTick` callback is that callback's record (public API).
 * Call once, early, before the server idles.
 */
let anchored: object | undefined;

export function anchorNextTickShape(): Promise<object> {
  return new Promise((resolve) => {
    process.nextTick(() => {
      anchored = executionAsyncResource();
      resolve(anchored);
    });
  });
}

/** The record held (tests). */
export const anchoredNextTickRecord = (): object | undefined => anchored;
