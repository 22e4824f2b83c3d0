import { Type, type TInteger, type TSchema } from 'typebox';

/** Shared wire schemas. Registered once with addSchema; routes point at them by $id. */
export const FieldErrorSchema = Type.Object(
  {
    field: Type.String({ description: 'JSON Pointer to the offending field (query and path fields are prefixed "query:" / "params:")' }),
    code: Type.String(),
    message: Type.String(),
  },
  { additionalProperties: false },
);

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ format: 'uri' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: 'Stable machine-readable code; see /docs/errors' }),
    request_id: Type.String(),
    errors: Type.Optional(Type.Array(FieldErrorSchema)),
    retry_after: Type.Optional(Type.Integer({ description: 'too_many_attempts: the seconds of Retry-After' })),
    mfa_token: Type.Optional(Type.String({ description: 'mfa_required from a login: the token for POST /v1/auth/mfa/verify (one use, expires_in seconds)' })),
    methods: Type.Optional(Type.Array(Type.String(), { description: 'mfa_required: how the factor can be proved (totp, recovery_code)' })),
    expires_in: Type.Optional(Type.Integer({ description: 'mfa_required from a login: seconds the mfa_token stays valid' })),
    step_up_seconds: Type.Optional(Type.Integer({ description: 'mfa_required on a sensitive change: how long a proved factor lasts (POST /v1/users/me/mfa/step-up)' })),
  },
  { $id: 'Problem', additionalProperties: true, description: 'RFC 9457 problem details' },
);

export const ProblemRef = Type.Ref('Problem');

/** Errors are sent as this media type, so the OpenAPI document says so too. */
export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

export interface ProblemResponse {
  description: string;
  content: { [PROBLEM_MEDIA_TYPE]: { schema: TSchema } };
}

/** Error responses documented on routes: status → description, body a Problem as problem+json. */
export function problemResponses(statuses: number[]): Record<number, ProblemResponse> {
  const descriptions: Record<number, string> = {
    400: 'Validation failed or malformed request',
    401: 'Missing, invalid or expired credential',
    403: 'Credential lacks the scope or a session is required',
    404: 'Not found',
    409: 'Conflict',
    413: 'Payload too large',
    415: 'Unsupported media type',
    422: 'Unprocessable',
    429: 'Rate limited',
    500: 'Internal error',
    503: 'Service unavailable',
  };
  return Object.fromEntries(
    statuses.map((s) => [s, { description: descriptions[s] ?? 'Error', content: { [PROBLEM_MEDIA_TYPE]: { schema: ProblemRef } } }]),
  );
}

export const Timestamp = Type.String({ format: 'date-time', example: '2026-11-22T09:30:00.000Z' });

/**
 * `?limit=1..100`, default 20. Optional on the wire, so the OpenAPI document does not
 * mark it required; Ajv's useDefaults fills in 20 before the handler runs, so its type stays
 * `number` (the cast keeps the optional marker off the static type only).
 */
export const PageLimit = Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })) as unknown as TInteger;

export const ListQuery = Type.Object(
  {
    limit: PageLimit,
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

export function listOf<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item), next_cursor: Type.Union([Type.String(), Type.Null()]) });
}

/**
 * One of a fixed list of strings, as a single `enum` (not an anyOf of constants): one bad value
 * is one field error (`invalid_value`), and the document lists the values plainly.
 */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string; default?: T[number] } = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}
