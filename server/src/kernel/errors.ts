/**
 * The closed list of problem `code`s. Codes are public API: add new ones, never rename or
 * remove one. Each has one HTTP status and one title; `detail` carries the specifics.
 * docs/ERRORS.md is the human copy of this table; a test keeps the two in step.
 */
export const ERROR_CATALOGUE = {
  validation_failed: { status: 400, title: 'Validation failed' },
  malformed_json: { status: 400, title: 'Malformed JSON' },
  invalid_request: { status: 400, title: 'Invalid request' },
  invalid_invitation: { status: 400, title: 'Invalid invitation' },
  authentication_required: { status: 401, title: 'Authentication required' },
  invalid_credentials: { status: 401, title: 'Invalid credentials' },
  invalid_token: { status: 401, title: 'Invalid token' },
  token_expired: { status: 401, title: 'Token expired' },
  insufficient_scope: { status: 403, title: 'Insufficient scope' },
  insufficient_role: { status: 403, title: 'Insufficient role' },
  not_a_member: { status: 403, title: 'Not a member of this organization' },
  invitation_email_mismatch: { status: 403, title: 'Invitation for another email' },
  session_required: { status: 403, title: 'Session required' },
  forbidden: { status: 403, title: 'Forbidden' },
  account_disabled: { status: 403, title: 'Account disabled' },
  email_not_verified: { status: 403, title: 'Email not verified' },
  mfa_required: { status: 403, title: 'Second factor required' },
  guest_not_allowed: { status: 403, title: 'Not for guests' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  not_acceptable: { status: 406, title: 'Not acceptable' },
  request_timeout: { status: 408, title: 'Request timeout' },
  email_taken: { status: 409, title: 'Email already registered' },
  conflict: { status: 409, title: 'Conflict' },
  last_owner: { status: 409, title: 'Last owner' },
  precondition_failed: { status: 412, title: 'Precondition failed' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  range_not_satisfiable: { status: 416, title: 'Range not satisfiable' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused' },
  limit_reached: { status: 422, title: 'Limit reached' },
  rate_limited: { status: 429, title: 'Rate limit exceeded' },
  too_many_attempts: { status: 429, title: 'Too many attempts' },
  too_many_streams: { status: 429, title: 'Too many open streams' },
  usage_exceeded: { status: 429, title: 'Usage exceeded' },
  header_too_large: { status: 431, title: 'Request header fields too large' },
  internal_error: { status: 500, title: 'Internal error' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

export interface FieldError {
  field: string; // JSON Pointer into the request part, e.g. "/email"
  code: string;
  message: string;
}

/** Thrown anywhere below the routes; turned into problem+json in exactly one place. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    detail?: string,
    readonly extra: { errors?: FieldError[]; headers?: Record<string, string>; [k: string]: unknown } = {},
  ) {
    super(detail ?? ERROR_CATALOGUE[code].title);
    this.name = 'AppError';
    this.status = ERROR_CATALOGUE[code].status;
  }
}

/**
 * 429 too_many_attempts: a throttle on guesses or mails (not the account's request budget, which
 * is rate_limited). Always with Retry-After and the same number as `retry_after` in the body.
 */
export function tooManyAttempts(detail: string, retryAfterSeconds: number): AppError {
  return new AppError('too_many_attempts', detail, { headers: { 'Retry-After': String(retryAfterSeconds) }, retry_after: retryAfterSeconds });
}

export function fieldError(field: string, code: string, message: string): AppError {
  return new AppError('validation_failed', message, { errors: [{ field, code, message }] });
}


