/**
 * What Prism 5.14 (proxy mode, --errors) says about one exchange, read from its answer.
 *
 * - Every violation it found, request- or response-side and of any severity, is listed in the
 *   `sl-violations` header as JSON: `[{location: ['request'|'response', ...], severity, code, message}]`
 *   (@stoplight/prism-http-server, addViolationHeader). An undocumented 4xx status is only a
 *   *warning* there: --errors does not turn it into an error answer, so the header is the only trace.
 * - An invalid request (validate-request on) is not forwarded: Prism answers 422 UNPROCESSABLE_ENTITY
 *   (or 401 UNAUTHORIZED for a missing credential) itself, with the details in the body, no header.
 * - A response violation of severity error becomes Prism's own 500 VIOLATIONS problem.
 * - A path or method not in the document: 404 NO_PATH_MATCHED_ERROR / 405 NO_METHOD_MATCHED_ERROR.
 * - A body Prism cannot parse as the declared JSON: its HTTP layer (micri) answers 400 invalid_json.
 * Prism's own answers are told from the server's by the server's X-Request-Id header, which every
 * Gatehouse answer carries and Prism never invents.
 */
export type Side = 'request' | 'response';

export interface Violation {
  side: Side;
  severity: string;
  location: string;
  message: string;
}

export interface Verdict {
  /** The answer is the server's (forwarded), not one Prism made up. */
  fromServer: boolean;
  violations: Violation[];
}

const PRISM_ERROR = 'https://stoplight.io/prism/errors#';
/** Prism's own answers that mean "your request is not what the document allows". */
const REQUEST_SIDE_ERRORS = new Set(['UNPROCESSABLE_ENTITY', 'UNAUTHORIZED', 'NO_PATH_MATCHED_ERROR', 'NO_METHOD_MATCHED_ERROR', 'NO_SERVER_MATCHED_ERROR', 'INVALID_CONTENT_TYPE', 'PROXY_UNSUPPORTED_REQUEST_BODY']);

interface RawViolation {
  location?: string[];
  severity?: string;
  code?: string | number;
  message?: string;
}

function fromRaw(raw: RawViolation, side?: Side): Violation {
  const location = raw.location ?? [];
  const inferred: Side = side ?? (location[0] === 'response' ? 'response' : 'request');
  const path = side ? location : location.slice(1);
  return { side: inferred, severity: raw.severity ?? 'Error', location: path.join('.'), message: String(raw.message ?? raw.code ?? 'violation') };
}

function headerViolations(header: string | null): Violation[] {
  if (!header) return [];
  try {
    return (JSON.parse(header) as RawViolation[]).map((v) => fromRaw(v));
  } catch {
    // Over 8 KiB Prism truncates the JSON ("Too many violations! …"): still a failure, never a pass.
    return [{ side: header.includes('"response"') ? 'response' : 'request', severity: 'Error', location: '', message: header.slice(0, 500) }];
  }
}

export function verdictOf(headers: Headers, body: unknown): Verdict {
  const violations = headerViolations(headers.get('sl-violations'));
  if (headers.get('x-request-id')) return { fromServer: true, violations };

  const problem = (body ?? {}) as { type?: unknown; title?: unknown; detail?: unknown; validation?: RawViolation[]; error?: { code?: string; message?: string } };
  const type = typeof problem.type === 'string' && problem.type.startsWith(PRISM_ERROR) ? problem.type.slice(PRISM_ERROR.length) : null;
  if (type === 'UNPROCESSABLE_ENTITY' && problem.validation) {
    violations.push(...problem.validation.map((v) => fromRaw(v, 'request')));
  } else if (type === 'VIOLATIONS') {
    // Already listed in the header; the body only confirms Prism refused the server's answer.
    if (!violations.some((v) => v.side === 'response')) violations.push(...(problem.validation ?? []).map((v) => fromRaw(v)));
  } else if (type && REQUEST_SIDE_ERRORS.has(type)) {
    violations.push({ side: 'request', severity: 'Error', location: type, message: `${String(problem.title)}: ${String(problem.detail ?? '')}` });
  } else if (problem.error?.code === 'invalid_json') {
    violations.push({ side: 'request', severity: 'Error', location: 'body', message: `Prism could not parse the body: ${problem.error.message ?? ''}` });
  } else {
    // Anything else Prism made up (upstream unreachable, 501, its own crash) is a failure of the exchange.
    violations.push({ side: 'response', severity: 'Error', location: type ?? 'no X-Request-Id', message: `not the server's answer: ${JSON.stringify(body).slice(0, 300)}` });
  }
  return { fromServer: false, violations };
}

export function describeViolations(violations: Violation[]): string {
  return violations.map((v) => `  ${v.side} ${v.severity}${v.location ? ` at ${v.location}` : ''}: ${v.message}`).join('\n');
}
