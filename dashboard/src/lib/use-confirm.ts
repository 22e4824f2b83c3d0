import { useState } from 'preact/hooks';
import { useAction } from './hooks.ts';

/** "Revoke …?" flows: remember which row is being confirmed, run the destructive call, then close. */
export function useConfirm<T>(action: (target: T) => Promise<void>) {
  const [target, setTarget] = useState<T | null>(null);
  const { run, busy, error, setError } = useAction(async (t: T) => {
    await action(t);
    setTarget(null);
  });
  return {
    target,
    busy,
    error,
    ask: (t: T) => {
      setError(null);
      setTarget(t);
    },
    cancel: () => setTarget(null),
    confirm: () => target !== null && void run(target),
  };
}
