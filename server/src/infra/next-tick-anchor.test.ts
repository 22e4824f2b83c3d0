import { describe, expect, it } from 'vitest';
import { anchorNextTickShape, anchoredNextTickRecord } from './next-tick-anchor.js';

describe('anchorNextTickShape', () => {
  it('holds one of process.nextTick\'s own records (the object whose map chain must stay alive)', async () => {
    expect(anchoredNextTickRecord()).toBeUndefined();
    const record = await anchorNextTickShape();
    expect(anchoredNextTickRecord()).toBe(record);
    // The record literal of Node's nextTick: two async-id symbols, then callback and args. Anything
    // else (a Promise, a timer) would keep the wrong hidden class alive.
    const symbols = Object.getOwnPropertySymbols(record).map((s) => s.description);
    expect(symbols).toEqual(['async_id_symbol', 'trigger_async_id_symbol']);
    expect(Object.keys(record)).toEqual(['callback', 'args']);
  });
});
