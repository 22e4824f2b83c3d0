import { createHash } from 'node:crypto';

/**
 * JSON with every object's keys in sorted order, so two bodies that mean the same thing (keys in
 * another order, other whitespace) give the same text. Arrays keep their order: it is meaning.
 * Only for validated bodies: their schema bounds the depth.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What makes two requests "the same request" for Idempotency-Key: method, target and body. */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${url}\n${canonicalJson(body)}`).digest('hex');
}
