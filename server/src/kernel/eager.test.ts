import { describe, expect, it } from 'vitest';
import { awaited, runEager, type Eventually } from './eager.js';

function* sum(a: Eventually<number>, b: Eventually<number>): Generator<unknown, number, any> {
  const x = yield* awaited(a);
  const y = yield* awaited(b);
  return x + y;
}

describe('runEager', () => {
  it('answers at once, without a promise, while every value is at hand', () => {
    expect(runEager(sum(1, 2))).toBe(3);
  });

  it('answers with a promise from the first promise on, and goes on in order', async () => {
    const answer = runEager(sum(1, Promise.resolve(2)));
    expect(answer).toBeInstanceOf(Promise);
    expect(await answer).toBe(3);
    expect(await runEager(sum(Promise.resolve(1), 2))).toBe(3);
  });

  it('throws a synchronous throw at once, and rejects with a throw after a promise', async () => {
    function* failing(first: Eventually<number>): Generator<unknown, number, any> {
      yield* awaited(first);
      throw new Error('boom');
    }
    expect(() => runEager(failing(1))).toThrow('boom');
    await expect(runEager(failing(Promise.resolve(1)))).rejects.toThrow('boom');
  });

  it('throws a rejection into the flow, which may catch it', async () => {
    function* guarded(value: Eventually<number>): Generator<unknown, string, any> {
      try {
        return String(yield* awaited(value));
      } catch (error) {
        return `caught ${(error as Error).message}`;
      }
    }
    expect(await runEager(guarded(Promise.reject(new Error('down'))))).toBe('caught down');
    await expect(runEager(sum(Promise.reject(new Error('down')), 1))).rejects.toThrow('down');
  });
});
