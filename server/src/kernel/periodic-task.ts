/**
 * A background task run every `everyMs` (a retention prune, say) that must not keep the process
 * alive, and whose failures are reported, never thrown into the timer.
 */
export function periodicTask(run: () => Promise<unknown>, everyMs: number, onError: (error: unknown) => void): { start(): void; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  return {
    start() {
      timer = setInterval(() => void run().catch(onError), everyMs);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
    },
  };
}
