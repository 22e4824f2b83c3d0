import type { LightMyRequestResponse } from 'fastify';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/kernel/errors.js';
import { isDocumented, type Operation } from './openapi-operations.js';
import { REQUEST_TIME_BOUND_MS } from './fuzz-settings.js';

/**
 * What every answer must be, whatever was sent: never a 5xx, a status the OpenAPI
 * document lists for the operation, and for errors a problem+json body whose `code` is in the
 * catalogue with exactly this status. Returns the broken rules (empty when the answer is fine).
 */
export function contractViolations(op: Operation, res: Pick<LightMyRequestResponse, 'statusCode' | 'headers' | 'body'>, elapsedMs: number, alsoAllowed: number[] = []): string[] {
  const problems: string[] = [];
  const status = res.statusCode;
  if (status >= 500) problems.push(`answered ${status} (a server error)`);
  if (!isDocumented(op, status) && !alsoAllowed.includes(status)) problems.push(`answered ${status}, which ${op.key} does not document (documented: ${op.responses.join(', ')})`);
  if (elapsedMs > REQUEST_TIME_BOUND_MS) problems.push(`took ${Math.round(elapsedMs)} ms (bound ${REQUEST_TIME_BOUND_MS} ms)`);
  if (status >= 300) problems.push(...(op.browserPage && isHtml(res) ? problemPageViolations(res) : problemViolations(res)));
  return problems;
}

const isHtml = (res: Pick<LightMyRequestResponse, 'headers'>) => /^text\/html\b/.test(String(res.headers['content-type']));

/**
 * A refusal as a page (an operation documented `x-gatehouse-browser-page`, asked for as HTML): an
 * error status, a whole HTML page under a Content-Security-Policy, naming the request id.
 */
export function problemPageViolations(res: Pick<LightMyRequestResponse, 'statusCode' | 'headers' | 'body'>): string[] {
  const problems: string[] = [];
  if (res.statusCode < 400) problems.push(`a page answered ${res.statusCode}, not an error status`);
  if (!res.body.startsWith('<!doctype html>') || !res.body.includes('<h1>')) problems.push('not a whole HTML page with a heading');
  if (!res.headers['content-security-policy']) problems.push('a page without a Content-Security-Policy');
  const requestId = String(res.headers['x-request-id'] ?? '');
  if (!requestId || !res.body.includes(requestId)) problems.push('the page does not name the request id');
  return problems;
}

/** The problem+json rules alone, for any answer (inject's, or one read off a real socket). */
export function problemViolations(res: Pick<LightMyRequestResponse, 'statusCode' | 'headers' | 'body'>): string[] {
  const problems: string[] = [];
  const status = res.statusCode;
  if (!/^application\/problem\+json\b/.test(String(res.headers['content-type']))) problems.push(`content-type ${String(res.headers['content-type'])}, not application/problem+json`);
  let body: { code?: unknown; status?: unknown; type?: unknown; title?: unknown; request_id?: unknown };
  try {
    body = JSON.parse(res.body) as typeof body;
  } catch {
    return [...problems, 'body is not JSON'];
  }
  const code = body.code as ErrorCode;
  if (typeof code !== 'string' || !Object.hasOwn(ERROR_CATALOGUE, code)) problems.push(`code ${JSON.stringify(body.code)} is not in the error catalogue`);
  else if (ERROR_CATALOGUE[code].status !== status) problems.push(`code ${code} belongs to status ${ERROR_CATALOGUE[code].status}, sent with ${status}`);
  if (body.status !== status) problems.push(`body.status ${String(body.status)} differs from ${status}`);
  if (typeof body.type !== 'string' || typeof body.title !== 'string' || typeof body.request_id !== 'string') problems.push('type, title or request_id missing');
  return problems;
}

/** The slowest requests seen, to report at the end (never asserted beyond the generous bound). */
export class SlowestRequests {
  private readonly entries: Array<{ ms: number; what: string }> = [];
  constructor(private readonly keep = 5) {}
  note(ms: number, what: string): void {
    this.entries.push({ ms, what });
    this.entries.sort((a, b) => b.ms - a.ms);
    this.entries.length = Math.min(this.entries.length, this.keep);
  }
  report(title: string): string {
    return `${title}: slowest requests\n${this.entries.map((e) => `  ${e.ms.toFixed(1).padStart(8)} ms  ${e.what}`).join('\n')}`;
  }
}
