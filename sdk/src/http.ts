/**
 * One HTTP exchange with retries: builds the URL, sends through the configured fetch, parses the
 * answer, turns errors into GatehouseError and retries 429/503 after Retry-After within bounds.
 * Knows nothing about sessions: the caller passes the Authorization header it wants.
 */
import { clientError, errorFromResponse, GatehouseError, isGatehouseError, type HeaderLookup } from './errors.js';
import { isClosedConnection, isRetryableStatus, isRetrySafe, parseRetryAfter, retryDelayMs, type RetryPolicy } from './retry.js';
import { sleep, type Deadline } from './signals.js';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface HttpRequest {
  method: string;
  /** Path with its parameters already filled in, e.g. `/v1/agents/agt_…`. */
  path: string;
  query?: Record<string, unknown> | undefined;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface HttpConfig {
  baseUrl: string;
  fetch: FetchLike;
  now: () => number;
}

/**
 * `https://host/prefix/` or `https://host/prefix/v1` → `https://host/prefix`: paths carry /v1
 * themselves. Plain string work, not URL: React Native's URL lacks parts of the standard
 * (searchParams.set throws there).
 */
export function normalizeBaseUrl(baseUrl: string): string {
  const trimmed = baseUrl.trim();
  if (!/^https?:\/\/[^/]+/i.test(trimmed)) throw new TypeError(`baseUrl must be an absolute http(s) URL, got "${baseUrl}"`);
  return trimmed.replace(/\/+$/, '').replace(/\/v1$/, '');
}

export function buildUrl(baseUrl: string, path: string, query?: Record<string, unknown>): string {
  const pairs = Object.entries(query ?? {})
    .filter(([, value]) => value !== undefined && value !== null)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
  return baseUrl + path + (pairs.length ? `?${pairs.join('&')}` : '');
}

/** JSON when the server says so (application/json, application/problem+json), else text. */
function parseBody(status: number, headers: HeaderLookup, text: string): unknown {
  if (text === '') return undefined;
  const type = headers.get('content-type') ?? '';
  if (!/[/+]json\b/i.test(type)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    throw new GatehouseError({ code: 'invalid_response', status, detail: 'The answer is not valid JSON.', requestId: headers.get('x-request-id'), cause });
  }
}

async function readBody(response: Response): Promise<unknown> {
  if (response.status === 204 || response.status === 205) return undefined;
  return parseBody(response.status, response.headers, await response.text());
}

/**
 * The GatehouseError for a non-2xx answer whose body was read as text: what `send` throws for the
 * same answer. The streaming transports use it, fetch and XMLHttpRequest alike.
 */
export function errorFromAnswer(status: number, headers: HeaderLookup, text: string, nowMs: number): GatehouseError {
  const retryAfter = parseRetryAfter(headers.get('retry-after'), nowMs);
  try {
    return errorFromResponse(status, headers, parseBody(status, headers, text), retryAfter);
  } catch (error) {
    if (isGatehouseError(error)) return error;
    throw error;
  }
}

/** The deadline's verdict when it fired, else a network error wrapping what fetch threw. */
function transportError(deadline: Deadline, cause: unknown): GatehouseError {
  if (isGatehouseError(cause)) return cause;
  return deadline.reason() ?? clientError('network_error', `The request could not be sent: ${cause instanceof Error ? cause.message : String(cause)}`, cause);
}

async function attempt(config: HttpConfig, request: HttpRequest, deadline: Deadline): Promise<{ response: Response; body: unknown }> {
  // Everything but /metrics answers JSON; */* keeps that text endpoint from answering 406.
  const headers: Record<string, string> = { accept: 'application/json, application/problem+json, */*;q=0.1', ...request.headers };
  let body: string | undefined;
  if (request.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(request.body);
  }
  try {
    const response = await config.fetch(buildUrl(config.baseUrl, request.path, request.query), { method: request.method, headers, body, signal: deadline.signal });
    return { response, body: await readBody(response) };
  } catch (error) {
    throw transportError(deadline, error);
  }
}

/** Sends `request`, retrying per `policy`; resolves to the parsed 2xx body, or throws GatehouseError. */
export async function send(config: HttpConfig, request: HttpRequest, deadline: Deadline, policy: RetryPolicy): Promise<unknown> {
  const hasKey = Object.keys(request.headers ?? {}).some((name) => name.toLowerCase() === 'idempotency-key');
  const retrySafe = isRetrySafe(request.method, hasKey);
  for (let retry = 0; ; retry++) {
    let answered: { response: Response; body: unknown };
    try {
      answered = await attempt(config, request, deadline);
    } catch (error) {
      // A connection that closed before any answer: again at once, on a new connection.
      if (retrySafe && retry < policy.maxRetries && isGatehouseError(error, 'network_error') && isClosedConnection(error.cause)) continue;
      throw error;
    }
    const { response, body } = answered;
    if (response.ok) return body;

    const retryAfter = parseRetryAfter(response.headers.get('retry-after'), config.now());
    const error = errorFromResponse(response.status, response.headers, body, retryAfter);
    if (!retrySafe || !isRetryableStatus(response.status) || retry >= policy.maxRetries) throw error;
    const wait = retryDelayMs(retryAfter, retry);
    // A wait we may not make (too long, or past the call's deadline) fails now rather than later.
    if (wait > policy.maxRetryWaitMs || wait >= deadline.remainingMs()) throw error;
    try {
      await sleep(wait, deadline.signal);
    } catch (cause) {
      throw transportError(deadline, cause);
    }
  }
}
