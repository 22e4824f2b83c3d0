/**
 * A value that is at hand, or a promise of it: what a cache answers (a hit at once, a miss after
 * its read). The hot path of every protected request is a chain of such answers, nearly all of
 * them hits.
 */
export type Eventually<T> = T | Promise<T>;

/** A flow for runEager: a generator that waits with `yield* awaited(…)` and returns a T. */
export type Flow<T> = Generator<unknown, T, any>;

/**
 * Waits for `value` inside a flow run by runEager: `const account = yield* awaited(cache.get(id))`
 * reads as `await`, but goes on at once when the value is at hand.
 */
export function* awaited<T>(value: Eventually<T>): Generator<Eventually<T>, T, T> {
  return yield value;
}

/**
 * Runs a flow written top to bottom as a generator that waits with `yield* awaited(…)`: synchronously
 * while each answer is at hand, so a request whose every answer is cached creates no promise (the
 * same flow written with async/await cost `GET /v1/users/me` about a third more CPU: ADR 0002, docs/adr/0002-caller-resolution-runs-eagerly.md); from
 * the first promise on, as a promise. A throw, or a rejection the flow does not catch, comes out as
 * the flow's own: thrown at once, or a rejected promise.
 */
export function runEager<T>(flow: Flow<T>): Eventually<T> {
  let step = flow.next();
  while (!step.done) {
    if (step.value instanceof Promise) return finishLater(flow, step.value);
    step = flow.next(step.value);
  }
  return step.value;
}

async function finishLater<T>(flow: Flow<T>, pending: Promise<unknown>): Promise<T> {
  for (;;) {
    let resumed: { value: unknown } | { error: unknown };
    try {
      resumed = { value: await pending };
    } catch (error) {
      resumed = { error };
    }
    // A rejection is thrown into the flow, which may catch it; what it does not catch rejects this promise.
    let step = 'error' in resumed ? flow.throw(resumed.error) : flow.next(resumed.value);
    while (!step.done && !(step.value instanceof Promise)) step = flow.next(step.value);
    if (step.done) return step.value;
    pending = step.value as Promise<unknown>;
  }
}
