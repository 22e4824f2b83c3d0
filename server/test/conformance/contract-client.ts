import { fillPath, matchOperation, type SpecOperation } from './spec.js';
import { describeViolations, verdictOf, type Violation } from './verdict.js';

/**
 * Sends requests by operationId through the Prism proxies and fails on any contract violation.
 *
 * - `call`: through the strict proxy (request validation on). The request must be one the document
 *   allows and the answer must be the server's and match the document: any violation fails.
 * - `callInvalid`: a deliberately bad request, through the proxy that forwards it anyway
 *   (--validate-request=false), so the server's *error answer* is still checked; request-side
 *   complaints are expected there, response-side ones fail.
 * - `refused`: the strict proxy must refuse the request itself (the document forbids it).
 * - `redirect`: an operation that answers a browser with 302 (a provider
 *   sign-in's steps). Prism's forwarder follows redirects itself, so these go to the server
 *   directly and the answer is checked here: a documented status, a Location, the request id.
 * Every answer the server gave through a proxy with a clean response is recorded for coverage.
 *
 * A live stream (`text/event-stream`, streamChat and streamEvents) is answered only once the
 * server ends it: Prism reads the whole upstream body before it validates and forwards anything.
 * So a request to a streaming operation is bounded (STREAM_BOUND_MS): a test that opens a stream
 * must make the server end it (delete the chat, revoke the key), and a sweep that opened one by
 * mistake fails with that message instead of hanging the run.
 */
export interface Call {
  path?: Record<string, string>;
  /** The path values are sent as given, not URL-encoded. */
  pathEncoded?: boolean;
  query?: Record<string, string | number | undefined>;
  json?: unknown;
  form?: Record<string, string>;
  raw?: { contentType: string; body: string };
  /** Bearer credential; omitted → no Authorization header. */
  token?: string;
  headers?: Record<string, string>;
}

export interface Answer {
  operationId: string;
  status: number;
  headers: Headers;
  // JSON answers are read by each test in its own shape; `any` keeps those reads short.
  body: any;
}

/** What the server answered through a proxy with no response violation, per operationId. */
export class Coverage {
  readonly answered = new Map<string, Set<number>>();
  /** Operations answered 2xx (or a browser step's 302) to a request the strict proxy found valid too. */
  readonly succeeded = new Set<string>();
  record(operationId: string, status: number, strict: boolean): void {
    const statuses = this.answered.get(operationId) ?? new Set<number>();
    statuses.add(status);
    this.answered.set(operationId, statuses);
    if (strict && status >= 200 && status < 400) this.succeeded.add(operationId);
  }
}

export interface Proxies {
  strict: string;
  lenient: string;
  /** The server itself, for the redirects Prism cannot pass on (see `redirect`). */
  upstream: string;
}

type Expected = number | number[] | undefined;

/** How long a request to a streaming operation may take, all of its stream included. */
export const STREAM_BOUND_MS = 20_000;

export class ContractClient {
  constructor(
    private readonly ops: Map<string, SpecOperation>,
    private readonly proxies: Proxies,
    readonly coverage: Coverage,
    /** X-Forwarded-For (the server runs with TRUST_PROXY): each actor has its own address, so per-IP limits are its own. */
    readonly ip: string,
  ) {}

  /** The same proxies and coverage, seen from another client address. */
  from(ip: string): ContractClient {
    return new ContractClient(this.ops, this.proxies, this.coverage, ip);
  }

  operations(): SpecOperation[] {
    return [...this.ops.values()];
  }

  operation(operationId: string): SpecOperation {
    const op = this.ops.get(operationId);
    if (!op) throw new Error(`no operation ${operationId} in the document`);
    return op;
  }

  async call(operationId: string, call: Call = {}, expected?: Expected): Promise<Answer> {
    const { answer, violations, fromServer, url } = await this.send(this.proxies.strict, operationId, call);
    if (violations.length > 0 || !fromServer) this.fail(url, answer, violations, 'violates the contract');
    return this.accept(url, answer, expected, true);
  }

  async callInvalid(operationId: string, call: Call, expected?: Expected): Promise<Answer> {
    const { answer, violations, fromServer, url } = await this.send(this.proxies.lenient, operationId, call);
    const responseSide = violations.filter((v) => v.side === 'response');
    if (responseSide.length > 0 || !fromServer) this.fail(url, answer, violations, 'answer violates the contract');
    return this.accept(url, answer, expected, false);
  }

  /** A browser step that answers 302: sent to the server directly, checked here (see the header). */
  async redirect(operationId: string, call: Call): Promise<URL> {
    const { answer, url } = await this.send(this.proxies.upstream, operationId, call);
    const op = this.operation(operationId);
    const location = answer.headers.get('location');
    if (answer.status !== 302 || !op.statuses.includes('302') || !location || !answer.headers.get('x-request-id')) {
      throw new Error(`${operationId} ${url}: expected a documented 302 with Location and X-Request-Id, got ${answer.status}\n${JSON.stringify(answer.body).slice(0, 600)}`);
    }
    // The redirect is this operation's success: it has no other.
    this.coverage.record(operationId, 302, true);
    return new URL(location);
  }

  /** The strict proxy must answer itself because the request breaks the document; returns why. */
  async refused(operationId: string, call: Call): Promise<Violation[]> {
    const { answer, violations, fromServer, url } = await this.send(this.proxies.strict, operationId, call);
    if (fromServer || violations.length === 0 || violations.some((v) => v.side === 'response')) {
      this.fail(url, answer, violations, 'was expected to be refused by the document, but was not');
    }
    return violations;
  }

  /** An exchange another client (the SDK) made through the strict proxy with a clean verdict. */
  recordExchange(method: string, pathname: string, status: number): void {
    const op = matchOperation(this.ops.values(), method, pathname);
    if (!op) throw new Error(`${method} ${pathname} is not an operation of the document`);
    this.coverage.record(op.operationId, status, true);
  }

  private accept(url: string, answer: Answer, expected: Expected, strict: boolean): Answer {
    this.coverage.record(answer.operationId, answer.status, strict);
    const allowed = expected === undefined ? undefined : [expected].flat();
    if (allowed && !allowed.includes(answer.status)) {
      throw new Error(`${answer.operationId} ${url}: expected ${allowed.join(' or ')}, got ${answer.status}\n${JSON.stringify(answer.body).slice(0, 600)}`);
    }
    return answer;
  }

  private fail(url: string, answer: Answer, violations: Violation[], what: string): never {
    throw new Error(
      `${answer.operationId} ${url} → ${answer.status} ${what}:\n${describeViolations(violations) || '  (no violation listed)'}\n  body: ${JSON.stringify(answer.body).slice(0, 600)}`,
    );
  }

  private async send(base: string, operationId: string, call: Call) {
    const op = this.operation(operationId);
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(call.query ?? {})) if (value !== undefined) query.set(name, String(value));
    const url = `${fillPath(op, call.path, call.pathEncoded)}${query.size ? `?${query}` : ''}`;
    const headers: Record<string, string> = { 'x-forwarded-for': this.ip, ...call.headers };
    if (call.token !== undefined) headers.authorization = `Bearer ${call.token}`;
    let body: string | undefined;
    if (call.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(call.json);
    } else if (call.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(call.form).toString();
    } else if (call.raw) {
      headers['content-type'] = call.raw.contentType;
      body = call.raw.body;
    }
    // Redirects (a provider sign-in's browser steps) are answers to check, not to follow.
    const signal = op.streams ? AbortSignal.timeout(STREAM_BOUND_MS) : undefined;
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${base}${url}`, { method: op.method, headers, body, redirect: 'manual', signal });
      text = await res.text();
    } catch (error) {
      if (signal?.aborted) {
        throw new Error(`${operationId} ${op.method} ${url}: no answer within ${STREAM_BOUND_MS} ms. Prism answers a live stream only once the server ends it: a request that opens one needs the server to end it (delete the chat, revoke the credential), and a sweep must not send one that succeeds.`);
      }
      throw error;
    }
    let parsed: unknown = text;
    if (/json/.test(res.headers.get('content-type') ?? '') && text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    const { fromServer, violations } = verdictOf(res.headers, parsed);
    const answer: Answer = { operationId, status: res.status, headers: res.headers, body: parsed };
    return { answer, violations, fromServer, url: `${op.method} ${url}` };
  }
}
