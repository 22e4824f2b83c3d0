/**
 * Every failure the SDK reports is a GatehouseError: server problems (RFC 9457, with the stable
 * `code` from docs/ERRORS.md) and the client's own failures (network, timeout, abort) alike, so
 * callers branch on `error.code` in one place.
 */

/** One entry of a problem's `errors[]`: which field, why (see docs/ERRORS.md, field error codes). */
export interface FieldError {
  field: string;
  code: string;
  message: string;
}

/**
 * Codes the SDK raises itself (status 0: no HTTP answer, or one it could not use):
 * - `network_error`: fetch failed (offline, DNS, connection refused, CORS refusal);
 * - `timeout`: the call's `timeoutMs` ran out (retries and waits included);
 * - `aborted`: the caller's AbortSignal fired;
 * - `not_authenticated`: a refresh was needed but no session is stored;
 * - `invalid_response`: an error status without a problem+json body (a proxy's HTML page, say).
 */
export type ClientErrorCode = 'network_error' | 'timeout' | 'aborted' | 'not_authenticated' | 'invalid_response';

export interface GatehouseErrorInit {
  code: string;
  status: number;
  detail: string;
  title?: string;
  requestId?: string | null;
  errors?: FieldError[];
  retryAfterSeconds?: number | null;
  problem?: Record<string, unknown> | null;
  cause?: unknown;
}

export class GatehouseError extends Error {
  /** Stable machine-readable code: a server problem's `code`, or one of ClientErrorCode. */
  readonly code: string;
  /** HTTP status, or 0 when no usable answer arrived. */
  readonly status: number;
  /** The problem's `request_id` (or the X-Request-Id header): quote it to support. */
  readonly requestId: string | null;
  /** Human sentence; may change between versions: match on `code`, not on this. */
  readonly detail: string;
  readonly title: string;
  /** Field errors of a 400 `validation_failed` (and similar), else empty. */
  readonly errors: FieldError[];
  /** Seconds from Retry-After on 429/503 answers, else null. */
  readonly retryAfterSeconds: number | null;
  /** The whole problem document, with extension members such as `window` or `required_scope`. */
  readonly problem: Record<string, unknown> | null;

  constructor(init: GatehouseErrorInit) {
    super(`${init.code}: ${init.detail}`, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'GatehouseError';
    this.code = init.code;
    this.status = init.status;
    this.detail = init.detail;
    this.title = init.title ?? init.code;
    this.requestId = init.requestId ?? null;
    this.errors = init.errors ?? [];
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
    this.problem = init.problem ?? null;
  }
}

/**
 * True for errors thrown by this SDK. Works across bundles and realms (two copies of the SDK,
 * an iframe), where `instanceof` would not.
 */
export function isGatehouseError(value: unknown, code?: string): value is GatehouseError {
  const ok = value instanceof GatehouseError || (typeof value === 'object' && value !== null && (value as { name?: unknown }).name === 'GatehouseError' && typeof (value as { code?: unknown }).code === 'string');
  return ok && (code === undefined || (value as GatehouseError).code === code);
}

export function clientError(code: ClientErrorCode, detail: string, cause?: unknown): GatehouseError {
  return new GatehouseError({ code, status: 0, detail, cause });
}

function asFieldErrors(value: unknown): FieldError[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null)
    .map((e) => ({ field: String(e.field ?? ''), code: String(e.code ?? ''), message: String(e.message ?? '') }));
}

/** What the SDK reads of response headers: fetch's Headers, or a wrapper around XMLHttpRequest's getResponseHeader. */
export interface HeaderLookup {
  get(name: string): string | null;
}

/** The GatehouseError for a non-2xx answer; `body` is the parsed JSON (or text) the server sent. */
export function errorFromResponse(status: number, headers: HeaderLookup, body: unknown, retryAfterSeconds: number | null): GatehouseError {
  const requestId = headers.get('x-request-id');
  if (typeof body === 'object' && body !== null && typeof (body as { code?: unknown }).code === 'string') {
    const problem = body as Record<string, unknown>;
    return new GatehouseError({
      code: problem.code as string,
      status: typeof problem.status === 'number' ? problem.status : status,
      title: typeof problem.title === 'string' ? problem.title : undefined,
      detail: typeof problem.detail === 'string' ? problem.detail : `HTTP ${status}`,
      requestId: typeof problem.request_id === 'string' ? problem.request_id : requestId,
      errors: asFieldErrors(problem.errors),
      retryAfterSeconds,
      problem,
    });
  }
  const text = typeof body === 'string' ? body.slice(0, 200) : '';
  return new GatehouseError({
    code: 'invalid_response',
    status,
    detail: `HTTP ${status} without a problem+json body${text ? `: ${text}` : ''}`,
    requestId,
    retryAfterSeconds,
  });
}

/** What a login needs to finish when the account has a second factor (a 403 `mfa_required` from login). */
export interface MfaChallenge {
  mfaToken: string;
  /** `totp`, `recovery_code`. */
  methods: string[];
  /** Seconds the token stays valid. */
  expiresIn: number;
}

/**
 * The challenge inside a login's 403 `mfa_required`, or null for any other error (a step-up
 * `mfa_required` carries no token: call `me.mfa.stepUp()` then).
 */
export function mfaChallengeOf(error: unknown): MfaChallenge | null {
  if (!isGatehouseError(error) || error.code !== 'mfa_required' || typeof error.problem?.mfa_token !== 'string') return null;
  const methods = Array.isArray(error.problem.methods) ? error.problem.methods.filter((m): m is string => typeof m === 'string') : [];
  return { mfaToken: error.problem.mfa_token, methods, expiresIn: typeof error.problem.expires_in === 'number' ? error.problem.expires_in : 0 };
}
