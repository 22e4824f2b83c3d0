import { gatehouse } from './api.ts';

/**
 * Sign-in (or linking) with a provider from the dashboard: the SDK makes the authorize URL and
 * the PKCE verifier; the verifier waits in sessionStorage (this tab only, gone with it) under the
 * `state` the browser brings back to /oidc-callback, then the page redeems the code with it.
 */
export const CALLBACK_PATH = '/oidc-callback';
const STORAGE_PREFIX = 'gatehouse.dashboard.oidc.';

export interface PendingProviderSignIn {
  mode: 'sign-in' | 'link';
  provider: string;
  providerName: string;
  codeVerifier: string;
  /** Where to go afterwards (the login page's `next`). */
  next: string;
}

export async function goToProvider(provider: { id: string; name: string }, mode: PendingProviderSignIn['mode'], next = '/'): Promise<void> {
  const state = crypto.randomUUID();
  const { url, codeVerifier } = await gatehouse.auth.providerSignIn(provider.id, { redirectUri: `${window.location.origin}${CALLBACK_PATH}`, state });
  const pending: PendingProviderSignIn = { mode, provider: provider.id, providerName: provider.name, codeVerifier, next };
  sessionStorage.setItem(STORAGE_PREFIX + state, JSON.stringify(pending));
  window.location.assign(url);
}

/** The sign-in this tab started with `state`, once (a reload of the callback page finds nothing). */
export function takePending(state: string | null): PendingProviderSignIn | null {
  if (!state) return null;
  const raw = sessionStorage.getItem(STORAGE_PREFIX + state);
  sessionStorage.removeItem(STORAGE_PREFIX + state);
  try {
    return raw ? (JSON.parse(raw) as PendingProviderSignIn) : null;
  } catch {
    return null;
  }
}
