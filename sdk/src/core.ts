/**
 * The one place an operation becomes an HTTP call: route lookup, path parameters, the call's
 * deadline, the Idempotency-Key, the credential, and the single retry after a refresh when the
 * server answers 401 to a session's access token. Resource modules only name operations.
 */
import { isGatehouseError } from './errors.js';
import { send, type HttpConfig, type HttpRequest } from './http.js';
import { newIdempotencyKey } from './idempotency.js';
import type { RandomBytes } from './pkce.js';
import type { OperationId, QueryParams, RequestBody, Success } from './operations.js';
import type { RetryPolicy } from './retry.js';
import { ROUTES } from './routes.js';
import type { SessionManager } from './session.js';
import { createDeadline } from './signals.js';

/** Options every method takes as its last argument. */
export interface RequestOptions {
  /** Cancels the call (fetch, retry waits and the wait for a refresh): it rejects with code `aborted`. */
  signal?: AbortSignal;
  /** For the whole call, retries included; overrides the client's `timeoutMs`. Rejects with code `timeout`. */
  timeoutMs?: number;
  /** Overrides the client's `maxRetries` for this call (0: never retry). */
  maxRetries?: number;
  /** Extra request headers (e.g. your own X-Request-Id to correlate logs). */
  headers?: Record<string, string>;
}

/** Creating calls also take an Idempotency-Key; one is generated per call when you give none. */
export interface CreateOptions extends RequestOptions {
  idempotencyKey?: string;
}

export interface CallInput<K extends OperationId> {
  params?: Record<string, string>;
  query?: QueryParams<K> | undefined;
  body?: RequestBody<K>;
}

export interface CoreConfig {
  http: HttpConfig;
  sessions: SessionManager;
  apiKey?: string | undefined;
  /** The organization a session's calls act for (Gatehouse-Organization), read per call; null: the personal one. */
  organization: () => string | null;
  timeoutMs: number;
  retry: RetryPolicy;
  /** The client's own random bytes, where the runtime has no Web Crypto (GatehouseOptions.randomBytes). */
  randomBytes?: RandomBytes | undefined;
}

/** The header an access token names the organization it acts for with. */
export const ORGANIZATION_HEADER = 'gatehouse-organization';

/**
 * Adds the organization header to a request sent with a session's access token. Not with an API
 * key: a key acts for its own organization, and the server refuses one naming another. A header
 * the caller set (in any case) wins.
 */
export function withOrganization(headers: Record<string, string>, organization: string | null): Record<string, string> {
  if (organization === null || Object.keys(headers).some((name) => name.toLowerCase() === ORGANIZATION_HEADER)) return headers;
  return { ...headers, [ORGANIZATION_HEADER]: organization };
}

export type Call = <K extends OperationId>(operation: K, input?: CallInput<K>, options?: CreateOptions) => Promise<Success<K>>;

/** The access-token errors a refresh can cure. Others (revoked key, wrong scope) it cannot. */
const REFRESHABLE = new Set(['token_expired', 'invalid_token']);

/** A 401 that a refresh may cure, when the rejected credential was a session's access token. */
export function refreshMayCure(error: unknown): boolean {
  return isGatehouseError(error) && error.status === 401 && REFRESHABLE.has(error.code);
}

export function fillPath(template: string, params: Record<string, string> = {}): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === '') throw new TypeError(`missing path parameter "${name}" for ${template}`);
    return encodeURIComponent(value);
  });
}

export function createCall(config: CoreConfig): Call {
  const withBearer = (request: HttpRequest, token: string | null): HttpRequest =>
    token === null ? request : { ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } };
  const asSession = (request: HttpRequest): HttpRequest => ({ ...request, headers: withOrganization(request.headers ?? {}, config.organization()) });

  /**
   * The session's access token from `get`. Where the session is optional, a session that just
   * ended (its refresh refused, so it was cleared) gives null: the request goes without one, and
   * the server answers whether it needed it. Anything else (offline) is thrown as it is.
   */
  async function tokenOrNone(route: { optionalSession?: true }, get: () => Promise<string | null>): Promise<string | null> {
    try {
      return await get();
    } catch (error) {
      if (route.optionalSession && (await config.sessions.get()) === null) return null;
      throw error;
    }
  }

  return async function call<K extends OperationId>(operation: K, input: CallInput<K> = {}, options: CreateOptions = {}): Promise<Success<K>> {
    const route = ROUTES[operation];
    const [method, template] = route.at;
    const headers: Record<string, string> = { ...options.headers };
    if (route.idempotent) {
      const key = options.idempotencyKey ?? newIdempotencyKey(config.randomBytes);
      if (key) headers['idempotency-key'] = key;
    }
    const request: HttpRequest = { method, path: fillPath(template, input.params), query: input.query, body: input.body, headers };
    const policy: RetryPolicy = { ...config.retry, maxRetries: options.maxRetries ?? config.retry.maxRetries };
    const deadline = createDeadline({ signal: options.signal, timeoutMs: options.timeoutMs ?? config.timeoutMs });
    try {
      if (route.public) return (await send(config.http, request, deadline, policy)) as Success<K>;

      // A stored session wins over the API key: a signed-in user acts as themselves.
      const sessionToken = await tokenOrNone(route, () => config.sessions.accessToken(deadline.signal));
      // Where the session is optional the API key is never sent: the operation has no use for it.
      if (sessionToken === null) return (await send(config.http, withBearer(request, route.optionalSession ? null : (config.apiKey ?? null)), deadline, policy)) as Success<K>;
      const own = asSession(request);
      try {
        return (await send(config.http, withBearer(own, sessionToken), deadline, policy)) as Success<K>;
      } catch (error) {
        if (!refreshMayCure(error)) throw error;
        // Expired early (clock skew) or revoked: refresh once and try again with the new token.
        const fresh = await tokenOrNone(route, () => config.sessions.refreshAfterRejection(sessionToken, deadline.signal));
        return (await send(config.http, fresh === null ? request : withBearer(own, fresh), deadline, policy)) as Success<K>;
      }
    } finally {
      deadline.dispose();
    }
  };
}
