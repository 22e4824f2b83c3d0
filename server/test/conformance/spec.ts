/**
 * The published document as the suite uses it: every operation by operationId, so requests are
 * built from the document (method and path template) rather than typed by hand, and coverage can
 * be checked against the full list.
 */
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export interface SpecOperation {
  operationId: string;
  method: string;
  /** Path template, e.g. /v1/agents/{id}. */
  path: string;
  secured: boolean;
  /** Documented statuses, e.g. ['200', '400', '401']. */
  statuses: string[];
  hasBody: boolean;
  queryParams: string[];
  headerParams: string[];
  /**
   * Its success is a `text/event-stream` (Server-Sent Events) that only the server ends: a
   * request that succeeds is answered, through Prism, only once the stream is over.
   */
  streams: boolean;
}

interface RawOperation {
  operationId?: string;
  security?: unknown[];
  parameters?: { in: string; name: string }[];
  responses?: Record<string, { content?: Record<string, unknown> }>;
  requestBody?: unknown;
}

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Partial<Record<string, RawOperation>>>;
}

export function operationsOf(doc: OpenApiDocument): Map<string, SpecOperation> {
  const ops = new Map<string, SpecOperation>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      if (!op.operationId) throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      ops.set(op.operationId, {
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        // Protected: a credential is required. `{}` among the requirements makes it optional
        // (verifyEmail: a change of email's link takes the owner's session, a registration link none).
        secured: (op.security ?? []).length > 0 && !(op.security ?? []).some((requirement) => Object.keys(requirement as object).length === 0),
        statuses: Object.keys(op.responses ?? {}),
        hasBody: op.requestBody !== undefined,
        queryParams: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        headerParams: (op.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name.toLowerCase()),
        streams: Object.entries(op.responses ?? {}).some(([status, answer]) => status.startsWith('2') && Object.keys(answer.content ?? {}).includes('text/event-stream')),
      });
    }
  }
  return ops;
}

/**
 * `/v1/agents/{id}` with `{ id: 'agt_…' }` → `/v1/agents/agt_…`. Values are URL-encoded unless
 * `encoded` says they already are (to send a deliberately broken encoding).
 */
export function fillPath(op: SpecOperation, params: Record<string, string> = {}, encoded = false): string {
  return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${op.operationId}: missing path parameter ${name}`);
    return encoded ? value : encodeURIComponent(value);
  });
}

/** The operation a concrete request is for (`GET /v1/agents/agt_…` → getAgent), if the document has one. */
export function matchOperation(ops: Iterable<SpecOperation>, method: string, pathname: string): SpecOperation | undefined {
  for (const op of ops) {
    if (op.method !== method.toUpperCase()) continue;
    const literal = (part: string) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
    const pattern = new RegExp(`^${op.path.split(/\{[^}]+\}/).map(literal).join('[^/]+')}$`);
    if (pattern.test(pathname)) return op;
  }
  return undefined;
}
