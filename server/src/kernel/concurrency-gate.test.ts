import { describe, expect, it } from 'vitest';
import { ConcurrencyGate, GateFullError } from './concurrency-gate.js';

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('ConcurrencyGate', () => {
  it('never runs more than its limit at once, and runs every task in order of arrival', async () => {
    const gate = new ConcurrencyGate(2, 100);
    let active = 0;
    let peak = 0;
    const order: number[] = [];
    await Promise.all(Array.from({ length: 20 }, (_, i) => gate.run(async () => {
      active++;
      peak = Math.max(peak, active);
      order.push(i);
      await tick();
      active--;
    })));
    expect(peak).toBe(2);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it('refuses at once when the queue is full, and frees slots after failures', async () => {
    const gate = new ConcurrencyGate(1, 2);
    const first = gate.run(async () => { await tick(); throw new Error('boom'); });
    const queued = [gate.run(async () => 1), gate.run(async () => 2)];
    await expect(gate.run(async () => 3)).rejects.toBeInstanceOf(GateFullError);
    await expect(first).rejects.toThrow('boom');
    expect(await Promise.all(queued)).toEqual([1, 2]);
    expect(await gate.run(async () => 4)).toBe(4);
    expect(gate.queued).toBe(0);
  });
});
