import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { jsonBodyText, unexpectedBodyText } from './body-mutations.js';
import { hostileShortString } from './hostile-values.js';
import type { FuzzWorld } from './fuzz-world.js';
import type { JsonSchema, Operation } from './openapi-operations.js';
import { contentLengthSkew, contentType, credential, encode, extraHeaders, pathValue, queryString, type Credential, type PathValue } from './request-parts.js';
import { valueFor } from './schema-values.js';

/** One fuzzed request for an operation, as data (fast-check prints and shrinks it). */
export interface FuzzRequest {
  path: PathValue[];
  query: string | undefined;
  body: string | undefined;
  contentType: string | undefined;
  contentLength: number | string | undefined;
  headers: Record<string, string>;
  credential: Credential;
}

type Resolve = (schema: JsonSchema) => JsonSchema;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function formBody(schema: JsonSchema, resolve: Resolve): fc.Arbitrary<string> {
  const pairs = valueFor(schema, resolve).map((v) => Object.entries(v as Record<string, unknown>).map(([k, x]) => `${encode(k)}=${encode(String(x))}`).join('&'));
  const junkPairs = fc.array(fc.tuple(hostileShortString, hostileShortString), { maxLength: 4 }).map((kv) => kv.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&'));
  return fc.oneof(pairs, junkPairs, fc.constantFrom('%', 'a=%zz', '&&&', 'grant_type=password&grant_type=refresh_token', '__proto__[x]=1'));
}

/** Body and its declared media type: what the operation documents, mostly; anything, sometimes. */
function bodyFor(op: Operation, resolve: Resolve): fc.Arbitrary<{ body: string | undefined; contentType: string | undefined }> {
  if (!BODY_METHODS.has(op.method)) return fc.constant({ body: undefined, contentType: undefined });
  const declared = Object.entries(op.bodies).map(([type, schema]) =>
    type.includes('x-www-form-urlencoded')
      ? formBody(schema, resolve).map((body) => ({ body, contentType: type as string | undefined }))
      : fc.tuple(jsonBodyText(valueFor(schema, resolve)), contentType).map(([body, ct]) => ({ body, contentType: ct as string | undefined })),
  );
  const stray = fc.tuple(unexpectedBodyText, contentType).map(([body, ct]) => ({ body: body as string | undefined, contentType: ct as string | undefined }));
  const none = fc.constant({ body: undefined, contentType: undefined });
  return declared.length > 0 ? fc.oneof({ weight: 8, arbitrary: fc.oneof(...declared) }, { weight: 1, arbitrary: none }) : fc.oneof({ weight: 3, arbitrary: none }, { weight: 1, arbitrary: stray });
}

export function fuzzRequest(op: Operation, resolve: Resolve): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.path.match(/\{[^}]+\}/g) ?? [];
  return fc
    .record({
      path: fc.tuple(...pathParams.map(() => pathValue)),
      query: fc.option(queryString(op.parameters, resolve), { nil: undefined }),
      body: bodyFor(op, resolve),
      contentLength: contentLengthSkew,
      headers: extraHeaders,
      credential: op.requiresCredential ? credential : fc.constantFrom<Credential>('none', 'none', 'access_token', 'junk'),
    })
    .map(({ body, ...rest }) => ({ ...rest, path: rest.path as PathValue[], body: body.body, contentType: body.contentType }));
}

/** The live id for `{id}` after `/agents`, `/chats`…; any live id when the collection has none. */
function liveId(world: FuzzWorld, template: string, index: number): string {
  const segments = template.split('/');
  const position = segments.flatMap((s, i) => (s.startsWith('{') ? [i] : []))[index] ?? 0;
  const ids = world.liveIds();
  return ids[segments[position - 1] ?? ''] ?? Object.values(ids)[0]!;
}

export function toInjectOptions(world: FuzzWorld, op: Operation, req: FuzzRequest): InjectOptions {
  let index = 0;
  const path = op.path.replace(/\{[^}]+\}/g, () => {
    const value = req.path[index]!;
    const text = 'live' in value ? liveId(world, op.path, index) : value.raw;
    index += 1;
    return text;
  });
  const live = (text: string) => text.replace(/(?:@|%40)live(?::|%3A)([a-z-]+)(?:@|%40)/g, (_, collection: string) => world.liveIds()[collection] ?? collection);
  const headers: Record<string, string> = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, live(value)]));
  if (req.credential === 'access_token') headers.authorization = `Bearer ${world.accessToken()}`;
  if (req.credential === 'api_key') headers.authorization = `Bearer ${world.apiKey()}`;
  if (req.credential === 'junk') headers.authorization = 'Bearer not-a-credential';
  if (req.contentType !== undefined && req.body !== undefined) headers['content-type'] = req.contentType;
  if (req.contentLength !== undefined && req.body !== undefined) headers['content-length'] = String(req.contentLength);
  const url = req.query ? `${path}?${live(req.query)}` : path;
  return { method: op.method as InjectOptions['method'], url, headers, ...(req.body !== undefined ? { payload: live(req.body) } : {}) };
}

/** A short description of a request for failure messages (bodies can be megabytes). */
export function describeRequest(options: InjectOptions): string {
  const clip = (s: string) => (s.length > 300 ? `${s.slice(0, 300)}… (${s.length} chars)` : s);
  const url = String(options.url);
  return `${String(options.method)} ${clip(url)}\n  headers: ${clip(JSON.stringify(options.headers))}\n  body: ${options.payload === undefined ? '(none)' : clip(JSON.stringify(options.payload))}`;
}

/**
 * A dot segment (".", "..", "%2E"…) is removed by URL normalization (RFC 3986 §5.2.4), so the
 * request names another path: a 404 or 405 is then right even if this operation lists neither.
 */
export function leavesTemplate(options: InjectOptions): boolean {
  const path = String(options.url).split('?')[0]!;
  return path.split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment));
}
