/**
 * Gatehouse as the authorization server of an app someone else builds (OAuth 2.1): the app sends
 * a person to Gatehouse's consent page and gets a token that acts for them, within the scopes they
 * allowed. Two ways in:
 * - code + PKCE (S256), for apps with a browser: `authorizationUrl` → the person allows → the
 *   browser comes back to the redirect URI → `exchangeCode`;
 * - the device grant (RFC 8628), for command-line tools and TVs: `startDeviceAuthorization` shows
 *   a code and an address → the person allows in any browser → `pollDeviceAuthorization`.
 * Then `refresh` (refresh tokens rotate: keep the newest) and `revoke`. Needs only fetch; errors
 * are GatehouseError with the OAuth error as `code` (`access_denied`, `invalid_grant`, `expired_token`…).
 */
import { GatehouseError } from './errors.js';
import type { FetchLike } from './http.js';
import { createPkcePair, type RandomBytes } from './pkce.js';
import { sleep } from './signals.js';

export interface AuthorizationClientOptions {
  /** Gatehouse's PUBLIC_URL: the issuer, where `/.well-known/oauth-authorization-server` is. */
  issuer: string;
  /** The app's client_id (Settings → OAuth apps, or from dynamic registration). */
  clientId: string;
  /** A confidential app's secret (servers only: an app on a person's device keeps none). */
  clientSecret?: string;
  /** Where the browser comes back to with the code (exactly as registered). */
  redirectUri?: string;
  fetch?: FetchLike;
  /** Default: crypto.getRandomValues (on React Native, pass expo-crypto's getRandomBytes). */
  randomBytes?: RandomBytes;
}

/** A token response (RFC 6749 §5.1). */
export interface OauthTokens {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope?: string;
  refresh_token?: string;
  id_token?: string;
}

export interface AuthorizationStart {
  /** Open it in the person's browser (on a phone: an auth session, not a web view). */
  url: string;
  /** Keep both until the browser comes back: `exchangeCode` checks the one and sends the other. */
  state: string;
  codeVerifier: string;
}

export interface DeviceAuthorization {
  deviceCode: string;
  /** Show it to the person, with `verificationUri`. */
  userCode: string;
  verificationUri: string;
  /** The address with the code in it (for a QR code or a link). */
  verificationUriComplete?: string;
  expiresIn: number;
  /** Seconds between polls. */
  interval: number;
}

interface ServerMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  revocation_endpoint: string;
  device_authorization_endpoint: string;
}

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

function oauthError(body: { error?: unknown; error_description?: unknown } | null, status: number): GatehouseError {
  const code = typeof body?.error === 'string' ? body.error : 'invalid_response';
  const detail = typeof body?.error_description === 'string' ? body.error_description : `The authorization server answered ${status}${code === 'invalid_response' ? ' without an OAuth error' : ` ${code}`}.`;
  return new GatehouseError({ code, status, detail });
}

export function createAuthorizationClient(options: AuthorizationClientOptions) {
  const issuer = options.issuer.replace(/\/+$/, '');
  const fetchFn: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  let metadata: Promise<ServerMetadata> | undefined;

  function discover(): Promise<ServerMetadata> {
    metadata ??= (async () => {
      const response = await fetchFn(`${issuer}/.well-known/oauth-authorization-server`, { headers: { accept: 'application/json' } });
      const body = await response.json().catch(() => null) as ServerMetadata | null;
      // RFC 8414 §3.3: the document must name the issuer it was fetched from (a mix-up defence).
      if (!response.ok || body?.issuer !== issuer) {
        metadata = undefined;
        throw new GatehouseError({ code: 'invalid_response', status: response.status, detail: `${issuer} does not describe itself as that issuer.` });
      }
      return body;
    })();
    return metadata;
  }

  /** A form POST to one of the server's endpoints, with the client's authentication. */
  async function post(endpoint: string, fields: Record<string, string | undefined>): Promise<Response> {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.set(name, value);
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (options.clientSecret === undefined) form.set('client_id', options.clientId);
    // RFC 6749 §2.3.1: both parts form-encoded, then Basic.
    else headers.authorization = `Basic ${btoa(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`)}`;
    return fetchFn(endpoint, { method: 'POST', headers, body: form.toString() });
  }

  async function tokenRequest(fields: Record<string, string | undefined>): Promise<OauthTokens> {
    const response = await post((await discover()).token_endpoint, fields);
    const body = await response.json().catch(() => null) as (OauthTokens & { error?: string }) | null;
    if (!response.ok || !body || typeof body.access_token !== 'string') throw oauthError(body, response.status);
    return body;
  }

  const redirectUri = () => {
    if (!options.redirectUri) throw new TypeError('This needs redirectUri: where the browser comes back to, exactly as the app registered it.');
    return options.redirectUri;
  };

  return {
    /** Where the browser comes back to (as given). */
    redirectUri: options.redirectUri,
    /** The server's metadata (RFC 8414), fetched once. */
    discover,

    /**
     * The address to send the person to, with a fresh state and PKCE pair. `resource`: the MCP
     * endpoint (`<issuer>/v1/mcp`) for a token that works there; default the REST API.
     */
    async authorizationUrl(request: { scope: string; resource?: string }): Promise<AuthorizationStart> {
      const { authorization_endpoint } = await discover();
      const pkce = await createPkcePair(options.randomBytes);
      const state = (await createPkcePair(options.randomBytes)).codeVerifier;
      const url = new URL(authorization_endpoint);
      url.search = new URLSearchParams({
        response_type: 'code', client_id: options.clientId, redirect_uri: redirectUri(), scope: request.scope, state,
        code_challenge: pkce.codeChallenge, code_challenge_method: 'S256', ...(request.resource ? { resource: request.resource } : {}),
      }).toString();
      return { url: url.toString(), state, codeVerifier: pkce.codeVerifier };
    },

    /**
     * The browser came back to `callbackUrl`: checks the state and the issuer (RFC 9207), then
     * trades the code for tokens. A denial rejects with `access_denied`.
     */
    async exchangeCode(callback: { callbackUrl: string; state: string; codeVerifier: string; resource?: string }): Promise<OauthTokens> {
      const params = new URL(callback.callbackUrl).searchParams;
      if (params.get('state') !== callback.state) throw new GatehouseError({ code: 'invalid_state', status: 0, detail: 'The answer does not carry the state this authorization began with.' });
      if (params.get('iss') !== null && params.get('iss') !== issuer) throw new GatehouseError({ code: 'invalid_issuer', status: 0, detail: 'The answer comes from another issuer.' });
      const error = params.get('error');
      if (error) throw new GatehouseError({ code: error, status: 0, detail: params.get('error_description') ?? `The authorization ended with ${error}.` });
      const code = params.get('code');
      if (!code) throw new GatehouseError({ code: 'invalid_response', status: 0, detail: 'The answer carries no code.' });
      return tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: redirectUri(), code_verifier: callback.codeVerifier, resource: callback.resource });
    },

    /** New tokens for a refresh token; the refresh token rotates: store the new one (the old one now ends the grant if used). */
    refresh: (refreshToken: string, request: { resource?: string } = {}) => tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshToken, resource: request.resource }),

    /** Begins the device grant: show `userCode` and `verificationUri` to the person. */
    async startDeviceAuthorization(request: { scope: string; resource?: string }): Promise<DeviceAuthorization> {
      const response = await post((await discover()).device_authorization_endpoint, { scope: request.scope, resource: request.resource });
      const body = await response.json().catch(() => null) as Record<string, unknown> | null;
      if (!response.ok || typeof body?.device_code !== 'string' || typeof body.user_code !== 'string') throw oauthError(body, response.status);
      return {
        deviceCode: body.device_code, userCode: body.user_code, verificationUri: String(body.verification_uri),
        ...(typeof body.verification_uri_complete === 'string' ? { verificationUriComplete: body.verification_uri_complete } : {}),
        expiresIn: Number(body.expires_in), interval: Number(body.interval ?? 5),
      };
    },

    /**
     * Polls until the person answers (RFC 8628 §3.5): waits `interval` between polls, 5 s more
     * after each `slow_down`. Resolves with the tokens; rejects with `access_denied` or
     * `expired_token`, or `aborted` when `signal` fires.
     */
    async pollDeviceAuthorization(device: DeviceAuthorization, poll: { signal?: AbortSignal } = {}): Promise<OauthTokens> {
      let interval = device.interval;
      const signal = poll.signal ?? new AbortController().signal;
      for (;;) {
        try {
          await sleep(interval * 1000, signal);
        } catch {
          throw new GatehouseError({ code: 'aborted', status: 0, detail: 'The wait for the person\'s answer was cancelled.' });
        }
        try {
          return await tokenRequest({ grant_type: DEVICE_GRANT, device_code: device.deviceCode });
        } catch (error) {
          if (!(error instanceof GatehouseError)) throw error;
          if (error.code === 'slow_down') interval += 5;
          else if (error.code !== 'authorization_pending') throw error;
        }
      }
    },

    /** Ends a token (RFC 7009): a refresh token ends its grant. */
    async revoke(token: string): Promise<void> {
      const response = await post((await discover()).revocation_endpoint, { token });
      if (!response.ok) throw oauthError(await response.json().catch(() => null) as Record<string, unknown> | null, response.status);
    },
  };
}

export type AuthorizationClient = ReturnType<typeof createAuthorizationClient>;
