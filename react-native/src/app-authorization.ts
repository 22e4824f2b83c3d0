/**
 * An app that uses Gatehouse as its authorization server (Gatehouse's consent page, a token that
 * acts for the person): the SDK's createAuthorizationClient, with what a phone needs: the
 * authorization in a browser session (expo-web-browser: ASWebAuthenticationSession on iOS,
 * Custom Tabs on Android; never a web view, where the app could read the password), and the device
 * grant as a hook for an app on a TV or a shared screen.
 */
import { createAuthorizationClient as createSdkAuthorizationClient, GatehouseError, type AuthorizationClient, type AuthorizationClientOptions, type DeviceAuthorization, type OauthTokens } from '@gatehouse/sdk';
import { useCallback, useEffect, useRef, useState } from 'react';
import { loadOpenAuthSession, type OpenAuthSession } from './provider-sign-in.js';
import { platformRandomBytes } from './random-bytes.js';

/** The SDK's client, with random bytes from expo-crypto where the runtime has no Web Crypto. */
export function createAuthorizationClient(options: AuthorizationClientOptions): AuthorizationClient {
  return createSdkAuthorizationClient({ ...options, randomBytes: options.randomBytes ?? platformRandomBytes() });
}

export interface AuthorizeInBrowserOptions {
  scope: string;
  /** `<issuer>/v1/mcp` for a token for the MCP endpoint; default the REST API. */
  resource?: string;
  /** Default: expo-web-browser's openAuthSessionAsync. */
  openAuthSession?: OpenAuthSession;
}

/**
 * Code + PKCE in a browser session: the person signs in on Gatehouse and allows; the session
 * ends at the app's redirect URI and the code becomes tokens. Rejects with `access_denied` when
 * the person denies or closes the browser.
 */
export async function authorizeInBrowser(app: AuthorizationClient, options: AuthorizeInBrowserOptions): Promise<OauthTokens> {
  if (!app.redirectUri) throw new TypeError('createAuthorizationClient needs redirectUri (your app\'s link, as registered) for authorizeInBrowser.');
  const start = await app.authorizationUrl({ scope: options.scope, ...(options.resource ? { resource: options.resource } : {}) });
  const result = await (options.openAuthSession ?? loadOpenAuthSession())(start.url, app.redirectUri);
  if (result.type !== 'success' || !result.url) throw new GatehouseError({ code: 'access_denied', status: 0, detail: 'The browser was closed before the authorization finished.' });
  return app.exchangeCode({ callbackUrl: result.url, state: start.state, codeVerifier: start.codeVerifier, ...(options.resource ? { resource: options.resource } : {}) });
}

export type DeviceAuthorizationStatus = 'idle' | 'starting' | 'waiting' | 'authorized' | 'failed';

export interface UseDeviceAuthorization {
  status: DeviceAuthorizationStatus;
  /** While waiting: show `userCode` and `verificationUri` (or a QR code of `verificationUriComplete`). */
  device: DeviceAuthorization | null;
  tokens: OauthTokens | null;
  /** `access_denied` (the person said no), `expired_token` (too late: start again), or another GatehouseError. */
  error: GatehouseError | null;
  start(): void;
  cancel(): void;
}

/**
 * The device grant as screen state: `start()` asks for a code, then the hook polls (at the
 * server's interval, slower when told) until the person allows or denies in any browser.
 * Unmounting or `cancel()` stops the polling.
 */
export function useDeviceAuthorization(app: AuthorizationClient, request: { scope: string; resource?: string }): UseDeviceAuthorization {
  const [state, setState] = useState<Pick<UseDeviceAuthorization, 'status' | 'device' | 'tokens' | 'error'>>({ status: 'idle', device: null, tokens: null, error: null });
  const running = useRef<AbortController | null>(null);
  const { scope, resource } = request;

  const cancel = useCallback(() => {
    running.current?.abort();
    running.current = null;
    setState({ status: 'idle', device: null, tokens: null, error: null });
  }, []);

  const start = useCallback(() => {
    running.current?.abort();
    const controller = new AbortController();
    running.current = controller;
    setState({ status: 'starting', device: null, tokens: null, error: null });
    void (async () => {
      try {
        const device = await app.startDeviceAuthorization({ scope, ...(resource ? { resource } : {}) });
        if (controller.signal.aborted) return;
        setState({ status: 'waiting', device, tokens: null, error: null });
        const tokens = await app.pollDeviceAuthorization(device, { signal: controller.signal });
        if (!controller.signal.aborted) setState({ status: 'authorized', device, tokens, error: null });
      } catch (error) {
        if (controller.signal.aborted) return;
        const failure = error instanceof GatehouseError ? error : new GatehouseError({ code: 'network_error', status: 0, detail: String(error), cause: error });
        setState((previous) => ({ status: 'failed', device: previous.device, tokens: null, error: failure }));
      }
    })();
  }, [app, scope, resource]);

  useEffect(() => () => running.current?.abort(), []);
  return { ...state, start, cancel };
}
