import { useMemo, useSyncExternalStore } from 'react';
import type { BiometricLockState } from './biometric-lock.js';
import { useGatehouseContext } from './provider.js';

export interface UseBiometricLock extends BiometricLockState {
  /** Whether the provider has a `biometricLock` at all. */
  enabled: boolean;
  /** The stored session waits for unlock() (`useSession().status` is `locked`). */
  locked: boolean;
  /**
   * Shows the platform's prompt; resolves true once the session is open (the cached user at once,
   * then revalidated as on a cold start), false when it stays locked: then `error` says why.
   * Never rejects. Without a lock, resolves whether someone is signed in.
   */
  unlock(): Promise<boolean>;
  /** Locks at once (a "Lock" button); nothing happens without a lock or a signed-in session. */
  lock(): void;
}

const NO_LOCK: BiometricLockState = { unlocking: false, error: null };
const noSubscription = () => () => {};

/** The biometric lock of the nearest <GatehouseProvider biometricLock={…}>: for the lock screen. */
export function useBiometricLock(): UseBiometricLock {
  const { controller } = useGatehouseContext();
  const lock = controller.biometricLock;
  const session = useSyncExternalStore(controller.subscribe, controller.getSnapshot, controller.getSnapshot);
  const getState = lock ? lock.getState : () => NO_LOCK;
  const state = useSyncExternalStore(lock ? lock.subscribe : noSubscription, getState, getState);
  const actions = useMemo(() => ({ unlock: controller.unlock, lock: controller.lock }), [controller]);
  return { enabled: lock !== null, locked: session.status === 'locked', unlocking: state.unlocking, error: state.error, ...actions };
}
