import { createGatehouse, type Gatehouse, type GatehouseOptions, type TokenStore } from '@gatehouse/sdk';
import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { AppState } from 'react-native';
import type { BackoffOptions } from './backoff.js';
import { createBiometricLock, type BiometricLockOptions } from './biometric-lock.js';
import { availableRandomBytes } from './random-bytes.js';
import { secureStoreTokenStore } from './secure-store.js';
import { createSessionController, type AppStateLike, type SessionController } from './session-controller.js';
import { withUserCache, type SessionStorage } from './storage.js';

export interface GatehouseProviderProps {
  /** Where the service is, e.g. `https://auth.example.com`. */
  baseUrl: string;
  /** Where the session lives. Default: secureStoreTokenStore() (expo-secure-store); never AsyncStorage. */
  tokenStore?: TokenStore | SessionStorage;
  /** Anything else of the SDK's options (fetch, timeouts, retries, the clock). */
  options?: Omit<GatehouseOptions, 'baseUrl' | 'tokenStore'>;
  /** Backoff of the retries after a network error or a 5xx. Default 1 s doubling to 30 s. */
  retry?: BackoffOptions;
  /** Foreground events; default React Native's AppState. */
  appState?: AppStateLike;
  /**
   * The organization (org_…) the hooks act for at start; default null, the account's personal
   * one. Switch later with useOrganization().switchTo(). Signing out returns to null.
   */
  organization?: string | null;
  /**
   * Opt-in: a stored session opens only after Face ID / fingerprint (expo-local-authentication),
   * on a cold start and after `afterBackgroundSeconds` in the background (measured with
   * `options.now`). Meanwhile `useSession().status` is `locked`; `useBiometricLock().unlock()`
   * asks. Read once, when the provider is created.
   */
  biometricLock?: BiometricLockOptions;
  children?: ReactNode;
}

interface OrganizationContextValue {
  /** The organization the client acts for; null: the account's personal one. */
  organization: string | null;
  switchTo(id: string | null): void;
}

const OrganizationContext = createContext<OrganizationContextValue | null>(null);

interface GatehouseContextValue {
  client: Gatehouse;
  controller: SessionController;
}

const GatehouseContext = createContext<GatehouseContextValue | null>(null);

/**
 * Creates the client and the session once, restores a stored session at once and revalidates it
 * in the background, and refreshes when the app comes back to the foreground.
 */
export function GatehouseProvider({ baseUrl, tokenStore, options, retry, appState, organization: initialOrganization = null, biometricLock, children }: GatehouseProviderProps) {
  const [organization, setOrganization] = useState<string | null>(initialOrganization);
  const [value] = useState<GatehouseContextValue>(() => {
    const storage = withUserCache(tokenStore ?? secureStoreTokenStore());
    const lock = biometricLock && createBiometricLock(biometricLock, options?.now ?? Date.now);
    let controller: SessionController | undefined;
    const client = createGatehouse({
      // Hermes has no crypto.randomUUID: creating calls keep their Idempotency-Key (and stay safe to retry) with expo-crypto's bytes.
      randomBytes: availableRandomBytes(),
      ...options,
      baseUrl,
      // Locked, the client finds no session: no request of anyone's carries its tokens.
      tokenStore: lock ? lock.guard(storage) : storage,
      organization: initialOrganization,
      onSessionChange(session) {
        if (session === null) {
          controller?.sessionCleared();
          // The next account may not belong to it.
          client.setOrganization(null);
          setOrganization(null);
        }
        options?.onSessionChange?.(session);
      },
    });
    controller = createSessionController({ client, storage, appState: appState ?? (AppState as AppStateLike), retry, lock });
    return { client, controller };
  });

  useEffect(() => {
    void value.controller.start();
    return () => value.controller.dispose();
  }, [value]);

  const organizationValue = useMemo<OrganizationContextValue>(() => ({
    organization,
    switchTo(id) {
      value.client.setOrganization(id);
      setOrganization(id);
    },
  }), [organization, value]);

  return (
    <GatehouseContext.Provider value={value}>
      <OrganizationContext.Provider value={organizationValue}>{children}</OrganizationContext.Provider>
    </GatehouseContext.Provider>
  );
}

/** The organization the hooks act for, and the switch (the lists of useAgents, useChats… load again). */
export function useOrganizationContext(): OrganizationContextValue {
  const value = useContext(OrganizationContext);
  if (!value) throw new Error('Gatehouse hooks must be used inside <GatehouseProvider>');
  return value;
}

export function useGatehouseContext(): GatehouseContextValue {
  const value = useContext(GatehouseContext);
  if (!value) throw new Error('Gatehouse hooks must be used inside <GatehouseProvider>');
  return value;
}

/** The SDK client of the nearest <GatehouseProvider>, for every operation the hooks do not wrap. */
export function useGatehouse(): Gatehouse {
  return useGatehouseContext().client;
}
