/**
 * createGatehouse(): wires configuration, the token store, the session manager and the HTTP
 * layer together, and groups the operations the way the API's documentation does.
 */
import { createCall, type CoreConfig, type RequestOptions } from './core.js';
import { send, normalizeBaseUrl, type FetchLike } from './http.js';
import type { RandomBytes } from './pkce.js';
import { accountResource } from './resources/account.js';
import { adminResource } from './resources/admin.js';
import { agentsResource } from './resources/agents.js';
import { apiKeysResource } from './resources/api-keys.js';
import { authResource } from './resources/auth.js';
import { chatsResource } from './resources/chats.js';
import { eventsResource } from './resources/events.js';
import { acceptInvitationResource, organizationsResource } from './resources/organizations.js';
import { sessionsResource } from './resources/sessions.js';
import { systemResource } from './resources/system.js';
import { oauthResource } from './resources/oauth.js';
import { usageResource } from './resources/usage.js';
import { webhooksResource } from './resources/webhooks.js';
import { ROUTES } from './routes.js';
import { createSessionManager, type TokenResponse } from './session.js';
import { createDeadline } from './signals.js';
import { openStream, type OpenStream } from './streams/event-stream.js';
import { memoryTokenStore, type StoredSession, type TokenStore } from './token-store.js';

export interface GatehouseOptions {
  /** Where the service is, e.g. `https://auth.example.com` (a trailing `/v1` is accepted too). */
  baseUrl: string;
  /** Where the session is kept. Default: memoryTokenStore() (gone on reload). */
  tokenStore?: TokenStore;
  /** An API key (gth_…) for programs; used when no session is stored. */
  apiKey?: string;
  /**
   * The organization (org_…) a session's calls act for, sent as `Gatehouse-Organization`.
   * Default: none, so the account's personal organization. An API key always acts for its own.
   * Change it later with setOrganization().
   */
  organization?: string | null;
  /** Default: globalThis.fetch. Pass one to add logging, proxies, or for tests. */
  fetch?: FetchLike;
  /** Per call, retries and waits included. Default 30 000 ms; 0 disables. */
  timeoutMs?: number;
  /** Retries of 429/503 for requests safe to repeat. Default 2. */
  maxRetries?: number;
  /** Longest Retry-After the SDK will wait for; longer ones throw at once. Default 30 000 ms. */
  maxRetryWaitMs?: number;
  /** Refresh the access token this long before it expires. Default 30 000 ms. */
  refreshMarginMs?: number;
  /** Called after sign-in, every refresh and sign-out (null), e.g. to update the UI. */
  onSessionChange?: (session: StoredSession | null) => void;
  /** The clock used for token expiry (epoch ms). Default Date.now; tests pass a fake one. */
  now?: () => number;
  /**
   * Random bytes where the runtime has no Web Crypto (Hermes: expo-crypto's getRandomBytes, which
   * @gatehouse/react-native passes): the Idempotency-Key of creating calls, PKCE for provider sign-in.
   */
  randomBytes?: RandomBytes;
}

export function createGatehouse(options: GatehouseOptions) {
  const now = options.now ?? (() => Date.now());
  // Looked up per call, never bound at creation: lets polyfills and test doubles replace it later,
  // and avoids "Illegal invocation" from calling window.fetch detached from window.
  const fetch: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const http = { baseUrl: normalizeBaseUrl(options.baseUrl), fetch, now };
  const timeoutMs = options.timeoutMs ?? 30_000;
  const retry = { maxRetries: options.maxRetries ?? 2, maxRetryWaitMs: options.maxRetryWaitMs ?? 30_000 };
  const [refreshMethod, refreshPath] = ROUTES.refresh.at;

  const sessions = createSessionManager({
    store: options.tokenStore ?? memoryTokenStore(),
    now,
    refreshMarginMs: options.refreshMarginMs ?? 30_000,
    onSessionChange: options.onSessionChange,
    // Shared by every caller waiting for it, so it has its own deadline instead of one caller's.
    async exchange(refreshToken) {
      const deadline = createDeadline({ timeoutMs });
      try {
        return (await send(http, { method: refreshMethod, path: refreshPath, body: { refresh_token: refreshToken } }, deadline, retry)) as TokenResponse;
      } finally {
        deadline.dispose();
      }
    },
  });
  let organization = checkOrganization(options.organization ?? null);
  const core: CoreConfig = { http, sessions, apiKey: options.apiKey, organization: () => organization, timeoutMs, retry, randomBytes: options.randomBytes };
  const call = createCall(core);
  const stream: OpenStream = (request) => openStream({ ...core, hasOwnFetch: options.fetch !== undefined }, request);

  return {
    auth: authResource(call, sessions, timeoutMs, http.baseUrl),
    me: accountResource(call, sessions),
    sessions: sessionsResource(call),
    apiKeys: apiKeysResource(call),
    usage: usageResource(call),
    admin: adminResource(call),
    agents: agentsResource(call),
    chats: chatsResource(call, stream),
    /** The account's live event stream (see chats.stream for one chat's). */
    events: eventsResource(stream),
    webhooks: webhooksResource(call),
    /** Organizations you belong to, their members, invitations and audit log. */
    organizations: organizationsResource(call),
    /** Accepting an invitation's mailed token. */
    invitations: acceptInvitationResource(call),
    system: systemResource(call),
    oauth: oauthResource(call),
    /**
     * The organization (org_…) the following calls with the session act for; null: the personal
     * one. Calls already sent and streams already open keep theirs.
     */
    setOrganization(id: string | null): void {
      organization = checkOrganization(id);
    },
    /** The organization set with the `organization` option or setOrganization(); null: the personal one. */
    getOrganization: (): string | null => organization,
    /** The stored session, for "am I signed in?" and for handing tokens to other code. */
    session: {
      get: () => sessions.get(),
      /** Adopt tokens obtained elsewhere (a server-side login, another client). */
      set: (tokens: TokenResponse) => sessions.save(tokens),
      /** Forget the session locally without telling the server (prefer auth.logout()). */
      clear: () => sessions.clear(),
      /**
       * The access token to use now, refreshed first when it is about to expire (one refresh,
       * shared with every concurrent caller); null when signed out. For handing the token to
       * other code, and for refreshing ahead of need (an app coming back to the foreground).
       */
      async accessToken(options: Pick<RequestOptions, 'signal' | 'timeoutMs'> = {}): Promise<string | null> {
        const deadline = createDeadline({ signal: options.signal, timeoutMs: options.timeoutMs ?? timeoutMs });
        try {
          return await sessions.accessToken(deadline.signal);
        } finally {
          deadline.dispose();
        }
      },
    },
    /** Any operation by its OpenAPI operationId, for what the grouped methods do not cover yet. */
    request: call,
  };
}

/** An id the header can carry; anything else (a name, an empty string) is a mistake in the caller. */
function checkOrganization(id: string | null): string | null {
  if (id !== null && !/^org_[A-Za-z0-9]+$/.test(id)) throw new TypeError(`organization must be an organization id (org_…) or null, got "${id}"`);
  return id;
}

export type Gatehouse = ReturnType<typeof createGatehouse>;
