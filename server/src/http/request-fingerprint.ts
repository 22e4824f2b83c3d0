import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

/**
 * JSON with every object's keys sorted (recursively) and no whitespace: one text for every
 * spelling of the same value. `{"a":1,"b":2}` and `{ "b": 2, "a": 1 }` parse to objects that
 * differ only in key order, and both come out as `{"a":1,"b":2}`. Arrays keep their order (it is
 * part of the value). Undefined properties are left out, as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const record = value as Record<string, unknown>;
  const members = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
  return `{${members.join(',')}}`;
}

/** Marks the current fingerprint; a stored one without it is from before (a bare SHA-256 hex). */
const VERSION = 'v2:';

/**
 * What makes two requests "the same" for Idempotency-Key: method, route, path parameters, and
 * the query and body when the route declares them (a route without a body schema ignores its
 * body; the body is also unvalidated then, and re-serializing a 200,000-deep array overflowed
 * the stack, a 500 found by fuzzing). Values are the parsed, validated ones, compared canonically,
 * so key order and whitespace in the JSON sent do not matter. Stored as `v2:` + base64url
 * SHA-256: 46 characters, within the column's 64.
 */
export function requestFingerprint(request: FastifyRequest): string {
  const schema = request.routeOptions.schema;
  const parts = [
    request.method,
    request.routeOptions.url ?? request.url,
    request.params ?? {},
    schema?.querystring === undefined ? null : (request.query ?? null),
    schema?.body === undefined ? null : (request.body ?? null),
  ];
  return VERSION + createHash('sha256').update(canonicalJson(parts)).digest('base64url');
}

/**
 * The fingerprint before canonical comparison (SHA-256 hex of the URL and the body as sent,
 * keys in their order). Keys stored with it stay valid for their 24 h, so it is still checked
 * against rows that carry it; once none is younger than a day this can go.
 */
function legacyFingerprint(request: FastifyRequest): string {
  const body = request.routeOptions.schema?.body === undefined ? null : (request.body ?? null);
  return createHash('sha256').update(`${request.method} ${request.url}\n${JSON.stringify(body)}`).digest('hex');
}

/** Whether `stored` (either version) is the fingerprint of `request`. */
export function matchesFingerprint(stored: string, request: FastifyRequest, current: string): boolean {
  return stored.startsWith(VERSION) ? stored === current : stored === legacyFingerprint(request);
}
