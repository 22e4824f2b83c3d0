/**
 * Wakes this instance's delivery worker right after a transaction that recorded events commits,
 * so deliveries go out in milliseconds instead of waiting for the next poll. Other instances
 * find the same rows on their own poll; the signal is an optimisation, never the only path.
 */
export interface EventSignal {
  notify(): void;
  onNotify(listener: () => void): void;
}

export function createEventSignal(): EventSignal {
  const listeners: Array<() => void> = [];
  return {
    notify: () => {
      for (const l of listeners) l();
    },
    onNotify: (listener) => void listeners.push(listener),
  };
}
