/** How long to wait before retry number `attempt` (0-based): doubling from `baseMs` up to `maxMs`, with jitter so many devices do not come back in step. */
export interface BackoffOptions {
  baseMs?: number;
  maxMs?: number;
}

export function backoffMs(attempt: number, { baseMs = 1_000, maxMs = 30_000 }: BackoffOptions = {}): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** attempt);
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}
