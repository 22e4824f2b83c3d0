import { setTimeout as sleep } from 'node:timers/promises';

/** One answer as the client saw it; `error` instead of a status when no answer came. */
export interface Outcome {
  method: string;
  path: string;
  /** Milliseconds since the test's clock started (see `phaseClock`). */
  at: number;
  ms: number;
  status?: number;
  contentType?: string;
  retryAfter?: string | null;
  body?: any;
  error?: string;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  /** The bound on any answer: past it the request counts as hung. */
  timeoutMs?: number;
}

/** A request that never throws: network failures and timeouts come back as `error`. */
export async function call(base: string, method: string, path: string, options: CallOptions = {}, t0 = 0): Promise<Outcome> {
  const started = Date.now();
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const outcome: Outcome = { method, path, at: started - t0, ms: 0 };
  try {
    const res = await fetch(base + path, {
      method, headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
    });
    const text = await res.text();
    outcome.status = res.status;
    outcome.contentType = res.headers.get('content-type') ?? undefined;
    outcome.retryAfter = res.headers.get('retry-after');
    try {
      outcome.body = text ? JSON.parse(text) : undefined;
    } catch {
      outcome.body = text;
    }
  } catch (error) {
    outcome.error = (error as Error).name === 'TimeoutError' ? 'timeout' : String((error as { cause?: { code?: string } }).cause?.code ?? error);
  }
  outcome.ms = Date.now() - started;
  return outcome;
}

/** Runs `step` again and again until `stop()` says so, at most one call per `periodMs`. */
export async function paced(periodMs: number, stop: () => boolean, step: () => Promise<void>): Promise<void> {
  while (!stop()) {
    const started = Date.now();
    await step();
    const left = periodMs - (Date.now() - started);
    if (left > 0 && !stop()) await sleep(left);
  }
}

/** Polls until `done` holds or the bound passes; returns the time it took, or throws. */
export async function within(boundMs: number, what: string, done: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await done())) {
    if (Date.now() - started > boundMs) throw new Error(`${what}: not within ${boundMs} ms`);
    await sleep(200);
  }
  return Date.now() - started;
}

export const isProblem = (o: Outcome, code: string) =>
  o.contentType?.startsWith('application/problem+json') === true && o.body?.code === code && o.body?.status === o.status;

/** A short account of outcomes for assertion messages: "200×41, 503 service_unavailable×7, ECONNREFUSED×1". */
export function tally(outcomes: Outcome[]): string {
  const counts = new Map<string, number>();
  for (const o of outcomes) {
    const key = o.error ?? `${o.status}${o.status && o.status >= 400 ? ` ${o.body?.code ?? ''}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${k}×${n}`).join(', ');
}

/** `fn` over `items`, at most `concurrency` at a time (a crash check must not become a load test). */
export async function inBatches<T, R>(items: T[], concurrency: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

/**
 * The agents load of the restart tests: each account, one call per `periodMs` until `stop()`,
 * alternates listing its agents and creating one; every answer goes into `outcomes`.
 */
export function agentTraffic(base: string, tokens: string[], options: { label: string; periodMs: number; timeoutMs: number; t0: number; outcomes: Outcome[]; stop: () => boolean }): Promise<void>[] {
  return tokens.map((token, i) => {
    let n = 0;
    return paced(options.periodMs, options.stop, async () => {
      const write = n++ % 2 === 1;
      const body = write ? { name: `${options.label} ${i}.${n}`, model: 'gpt-4o' } : undefined;
      options.outcomes.push(await call(base, write ? 'POST' : 'GET', write ? '/v1/agents' : '/v1/agents?limit=5', { token, body, timeoutMs: options.timeoutMs }, options.t0));
    });
  });
}
