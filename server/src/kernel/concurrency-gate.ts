/**
 * Runs at most `limit` tasks at once; the rest wait in order, at most `maxQueued` of them.
 * Past that, `run` refuses at once (GateFullError) instead of letting a queue grow without
 * bound: shedding load early keeps the answers that are given fast.
 */
export class GateFullError extends Error {
  constructor() {
    super('too many tasks waiting');
  }
}

export class ConcurrencyGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number, private readonly maxQueued: number) {
    if (!(limit >= 1)) throw new RangeError('limit must be at least 1');
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) {
      if (this.waiting.length >= this.maxQueued) throw new GateFullError();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter (running stays the same), or free it.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  get queued(): number {
    return this.waiting.length;
  }
}
