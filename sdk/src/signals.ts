/**
 * One AbortSignal per call that fires on the caller's signal or on the call's deadline, and
 * remembers which, so a fetch rejection can be reported as `aborted` or `timeout`. Written by
 * hand because AbortSignal.any/timeout are missing from some React Native versions.
 */
import { clientError, type GatehouseError } from './errors.js';

export interface Deadline {
  signal: AbortSignal;
  /** Milliseconds left before the timeout (Infinity without one). */
  remainingMs(): number;
  /** Why the signal fired, as the error to throw; null while it has not. */
  reason(): GatehouseError | null;
  /** Clears the timer and listeners; call when the call settles. */
  dispose(): void;
}

export function createDeadline(options: { signal?: AbortSignal | undefined; timeoutMs?: number | undefined }): Deadline {
  const controller = new AbortController();
  let why: GatehouseError | null = null;
  const fire = (error: GatehouseError) => {
    if (why) return;
    why = error;
    controller.abort(error);
  };
  const timeoutMs = options.timeoutMs;
  const endsAt = timeoutMs !== undefined && timeoutMs > 0 && Number.isFinite(timeoutMs) ? Date.now() + timeoutMs : Infinity;
  const timer = endsAt === Infinity ? undefined : setTimeout(() => fire(clientError('timeout', `No answer within ${timeoutMs} ms.`)), timeoutMs);
  const onAbort = () => fire(clientError('aborted', 'The request was aborted.', options.signal?.reason));
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });

  return {
    signal: controller.signal,
    remainingMs: () => Math.max(0, endsAt - Date.now()),
    reason: () => why,
    dispose() {
      if (timer !== undefined) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    },
  };
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it fires. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Waits for `promise` but gives up when `signal` fires (the promise itself keeps running). */
export function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
