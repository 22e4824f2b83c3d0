/** Time source, injected so tests can move time without sleeping. */
export interface Clock {
  now(): number; // epoch milliseconds
}

export const systemClock: Clock = { now: () => Date.now() };

/** RFC 3339 UTC with milliseconds and `Z`, the one time format on the wire and in storage. */
export function isoTime(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

export class ManualClock implements Clock {
  constructor(private current = Date.now()) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}
