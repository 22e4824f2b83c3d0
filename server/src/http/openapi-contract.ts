import type { FastifyContextConfig } from 'fastify';
import { isServiceScope } from '../kernel/access-terms/scopes.js';
import type { AuthRequirement } from './route-config.js';
import { routePolicy, type RoutePolicy } from './route-policy.js';

/**
 * What the cross-cutting hooks do to an operation's answers, which its route schema cannot say:
 * who may call it, whether it spends the request budget, which headers come back. Read from the
 * route's config (the same config the hooks act on), so the document cannot drift from them.
 */
export interface OperationFacts {
  requirement: AuthRequirement | undefined;
  /** Everything the route demands (route-policy.ts), as the hooks enforce it. */
  policy: RoutePolicy;
  /** Spends from the caller's account budget (and carries the RateLimit headers). */
  spendsBudget: boolean;
  /** Spends nothing of the caller's and has no limit of its own (`budget: 'caller-free'`). */
  callerFree: boolean;
  idempotent: boolean;
  setsLocation: boolean;
  /** A page a browser navigates to: a refusal asked for as HTML is a page (problem-page.ts). */
  browserPage: boolean;
}

export function operationFacts(config: FastifyContextConfig | undefined): OperationFacts {
  const policy = routePolicy(config);
  const requirement = policy.auth;
  return {
    requirement,
    policy,
    spendsBudget: requirement !== undefined && policy.budget === 'spend',
    callerFree: policy.budget === 'caller-free',
    idempotent: config?.idempotent === true,
    setsLocation: config?.locationHeader === true,
    browserPage: config?.browserPage === true,
  };
}

const integer = { type: 'integer', minimum: 0 };
/** Every response header the service sends. Written out on each response (not as a $ref): whether it is required differs from one response to the next, and a Reference Object cannot say so. */
export const RESPONSE_HEADERS: Record<string, { description: string; schema: Record<string, unknown> }> = {
  'X-Request-Id': { description: 'The request id (`req_…`, or a safe one the client sent): quote it to support.', schema: { type: 'string', minLength: 1, maxLength: 128 } },
  'RateLimit-Policy': { description: 'Both windows of the account\'s budget: `"minute";q=<limit>;w=60, "day";q=<limit>;w=86400`.', schema: { type: 'string' } },
  RateLimit: {
    description: 'The tighter window (draft-ietf-httpapi-ratelimit-headers): `r` = requests left in it, `t` = seconds until more become available (0 when none is spent).',
    schema: { type: 'string', pattern: '^"(minute|day)";r=\\d+;t=\\d+$' },
  },
  'X-RateLimit-Limit': { description: 'The tighter window\'s limit.', schema: integer },
  'X-RateLimit-Remaining': { description: 'Requests left in the tighter window.', schema: integer },
  'X-RateLimit-Reset': { description: 'When more requests become available in the tighter window, as a Unix time in seconds (now + `t`).', schema: integer },
  'Retry-After': { description: 'Seconds after which the next request will be admitted.', schema: integer },
  'WWW-Authenticate': { description: 'RFC 6750 challenge: `Bearer realm="gatehouse"`, with `error="invalid_token"` or `error="insufficient_scope"` where it applies.', schema: { type: 'string' } },
  Location: { description: 'The created resource.', schema: { type: 'string', format: 'uri-reference' } },
  'Idempotent-Replayed': { description: 'Present (`true`) when this answer replays the first one sent for the Idempotency-Key.', schema: { type: 'string', enum: ['true'] } },
};

const RATE_LIMIT_HEADERS = ['RateLimit-Policy', 'RateLimit', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

interface DocumentOperation {
  operationId?: string;
  description?: string;
  security?: Record<string, string[]>[];
  responses?: Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }>;
  [extension: `x-${string}`]: unknown;
}

const BROWSER_PAGE = {
  schema: { type: 'string', description: 'An HTML page with the problem\'s title, detail, code, status and request id, and a link back to sign-in: the answer to a request whose Accept asks for text/html (a browser navigating here). Other requests get application/problem+json.' },
};

/** What an operation demands, said in words (appended to its description). */
function requirementSentence(facts: OperationFacts): string {
  const { requirement } = facts;
  const who = requirement === 'session' ? 'Needs an access token from a login; API keys get 403 `session_required`.'
    : requirement === 'admin' ? 'Needs an admin\'s access token from a login; API keys get 403 `session_required`.'
      : requirement === 'any' ? 'Needs any valid credential.'
        : requirement !== undefined && isServiceScope(requirement) ? `Needs a service key: an API key with the \`${requirement}\` scope, which only an administrator can create and no access token carries.`
          : `Needs the \`${requirement}\` scope (access tokens carry every scope; API keys the scopes chosen at creation).`;
  const spends = facts.spendsBudget ? 'Spends one request of the account\'s budget.'
    : facts.callerFree ? 'Spends nothing of the caller\'s budget (it spends from the credential it checks).'
      : 'Spends no request budget (managing one\'s own account); limited by the account routes\' own limit.';
  const { role, stepUp, key } = facts.policy;
  const needsRole = role !== undefined && role !== 'viewer' ? ` Needs the ${role} role or higher in the organization.` : '';
  const proves = stepUp === 'always' ? ' On an account with a second factor, the session must have proved it within MFA_STEP_UP_SECONDS (otherwise 403 `mfa_required`).'
    : stepUp === 'granting-role' ? ' Granting the admin or owner role needs, on an account with a second factor, a session that proved it within MFA_STEP_UP_SECONDS (otherwise 403 `mfa_required`).'
      : stepUp === 'removing-another' ? ' Removing someone else needs, on an account with a second factor, a session that proved it within MFA_STEP_UP_SECONDS (otherwise 403 `mfa_required`); leaving does not.'
        : '';
  const holds = key === 'holding-its-scopes' ? ' A key with a service scope is changed or rolled only by a service administrator.' : '';
  return `${who} ${spends}${needsRole}${proves}${holds}`;
}

/**
 * The finished document: per operation the security requirement with its scope, the
 * `x-gatehouse-auth` extension (`requires`, `api_keys`, `spends_budget`) and the sentence saying
 * the same, and per response the headers it carries (required where every such answer has it).
 */
export function completeOpenApiDocument<T extends { paths?: Record<string, Record<string, unknown>> }>(
  doc: T, factsByOperation: ReadonlyMap<string, OperationFacts>,
): T {
  const ref = (name: string, required: boolean) => ({ ...RESPONSE_HEADERS[name], required });
  for (const item of Object.values(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method] as DocumentOperation | undefined;
      if (!op?.operationId) continue;
      const facts = factsByOperation.get(op.operationId);
      if (facts?.browserPage) op['x-gatehouse-browser-page'] = true;
      if (facts?.requirement !== undefined) {
        const { requirement } = facts;
        const scoped = requirement !== 'session' && requirement !== 'admin' && requirement !== 'any';
        op.security = [{ bearerAuth: scoped ? [requirement] : [] }];
        const { role, stepUp, key } = facts.policy;
        op['x-gatehouse-auth'] = {
          requires: requirement, api_keys: facts.policy.apiKeys, spends_budget: facts.spendsBudget,
          ...(role !== undefined ? { role } : {}), step_up: stepUp, ...(key !== undefined ? { key } : {}),
        };
        op.description = [op.description, requirementSentence(facts)].filter(Boolean).join('\n\n');
      }
      // An operation that may be sent a credential (security lists `{}` and bearerAuth) answers a
      // refused one with the challenge, but not every 401 of it is one (POST /v1/auth/email/verify's dead link).
      const optionalCredential = facts?.requirement === undefined && (op.security ?? []).some((requirement) => 'bearerAuth' in requirement);
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const code = Number(status);
        const headers: Record<string, unknown> = { 'X-Request-Id': ref('X-Request-Id', true) };
        const success = code >= 200 && code < 300;
        // Set once the limiter counted the request: on every answer but a refused credential.
        if (facts?.spendsBudget && code !== 401) for (const name of RATE_LIMIT_HEADERS) headers[name] = ref(name, success || code === 429);
        if (code === 429) headers['Retry-After'] = ref('Retry-After', true);
        if (code === 503) headers['Retry-After'] = ref('Retry-After', false);
        if (code === 401 && facts?.requirement !== undefined) headers['WWW-Authenticate'] = ref('WWW-Authenticate', true);
        if (code === 401 && optionalCredential) headers['WWW-Authenticate'] = ref('WWW-Authenticate', false);
        if (code === 403 && facts?.requirement !== undefined) headers['WWW-Authenticate'] = ref('WWW-Authenticate', false);
        if (code === 201 && facts?.setsLocation) headers.Location = ref('Location', true);
        if (success && facts?.idempotent) headers['Idempotent-Replayed'] = ref('Idempotent-Replayed', false);
        response.headers = { ...response.headers, ...headers };
        // The same refusal as a readable page, for a browser that asks for text/html.
        if (facts?.browserPage && code >= 400) response.content = { ...response.content, 'text/html': BROWSER_PAGE };
      }
    }
  }
  return doc;
}
