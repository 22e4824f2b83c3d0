import fc from 'fast-check';
import { hostileShortString, trickyText } from './hostile-values.js';
import type { Operation, Parameter } from './openapi-operations.js';
import { valueFor } from './schema-values.js';

/**
 * Path parameters, query strings and headers, hostile and plausible. Path parameters that should
 * name a live resource are chosen when the request is built (fixtures change between runs), so
 * arbitraries describe them as `{ live: true }`.
 */
export type PathValue = { live: true } | { raw: string };

/** Percent-encodes UTF-8 like a client would; lone surrogates become U+FFFD (as on the wire). */
export const encode = (text: string) => [...Buffer.from(text, 'utf8')].map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');

const BASE32 = '0123456789abcdefghjkmnpqrstvwxyz';
const typeIdBody = fc.string({ unit: fc.constantFrom(...BASE32), minLength: 26, maxLength: 26 });
const prefix = fc.constantFrom('usr', 'ses', 'key', 'agt', 'cht', 'msg', 'whk', 'evt', 'dlv', 'req', 'org', 'inv', 'aud', 'xyz', '');

/** TypeID-shaped and TypeID-breaking ids: right shape but unknown, wrong prefix, wrong length, bad letters, overflow. */
const idLike: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(prefix, typeIdBody).map(([p, b]) => `${p}_${b}`),
  fc.tuple(prefix, typeIdBody).map(([p, b]) => `${p}_8${b.slice(1)}`), // first char > 7 overflows 128 bits
  fc.tuple(prefix, typeIdBody, fc.constantFrom('i', 'l', 'o', 'u', 'I', 'O', '-', '!')).map(([p, b, c]) => `${p}_${b.slice(0, 25)}${c}`),
  fc.tuple(prefix, fc.string({ unit: fc.constantFrom(...BASE32), maxLength: 40 })).map(([p, b]) => `${p}_${b}`),
  fc.tuple(prefix, typeIdBody).map(([p, b]) => `${p.toUpperCase()}_${b.toUpperCase()}`),
);

/**
 * Path segments that file servers and routers trip over, as sent on the wire: dot segments plain
 * and encoded (a URL parser removes the plain ones, a socket does not), encoded slashes and
 * backslashes, NUL, overlong UTF-8 for ".", broken percent-encoding, dotfiles, long names.
 */
export const ODD_SEGMENTS = [
  '..', '.', '%2e%2e', '%2E%2E', '.%2e', '%2e', '..%2f..%2fetc%2fpasswd', '%2e%2e%2f%2e%2e%2fetc%2fpasswd', '%2F', 'a%2Fb', '%5c', '..%5c..%5cx',
  '%00', 'x%00.css', '%', '%zz', '%E0%A4%A', '%C0%AE%C0%AE', '%C0%AF', '%252e%252e', '.env', '.git', '', ';', 'x;.css', '~', '*', '%20',
  'a'.repeat(255), 'a'.repeat(256), 'a'.repeat(5_000), '%41'.repeat(300),
];

export const pathValue: fc.Arbitrary<PathValue> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ live: true as const }) },
  { weight: 3, arbitrary: idLike.map((s) => ({ raw: encode(s) })) },
  { weight: 2, arbitrary: hostileShortString.filter((s) => s.length > 0).map((s) => ({ raw: encode(s) })) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '%2F', 'a%2Fb', '..', '.', '%2e%2e', '%2E', '%2e%2e%2f%2e%2e%2fetc%2fpasswd', '%00', 'agt_%00', '%', '%zz', '%E0%A4%A', '%C0%AF', '%ED%A0%80',
      '%F0%9F%98%80', '%20', '+', ';', '%3B', '%3F', '%23', '*', '~', 'me', 'null', 'undefined', '0', '-1',
      'a'.repeat(64), 'a'.repeat(65), 'a'.repeat(200), 'a'.repeat(201), 'a'.repeat(5_000), '%41'.repeat(300),
    ).map((raw) => ({ raw })),
  },
  { weight: 1, arbitrary: fc.constantFrom(...ODD_SEGMENTS.filter((s) => s !== '')).map((raw) => ({ raw })) },
);

/** A path tail of odd and plain segments, e.g. "x/%2e%2e/%2e%2e/etc/passwd" or "..%2f.env". */
export const oddPathTail: fc.Arbitrary<string> = fc
  .array(fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...ODD_SEGMENTS) }, { weight: 1, arbitrary: fc.constantFrom('x', 'etc', 'passwd', 'package.json', 'index.html', 'swagger-ui.css') }), { minLength: 1, maxLength: 5 })
  .map((segments) => segments.join('/'));

/** A query string (without "?"): the documented names with plausible or hostile values, plus junk. */
export function queryString(params: Parameter[], resolve: Parameters<typeof valueFor>[1]): fc.Arbitrary<string> {
  const names = params.filter((p) => p.in === 'query');
  const pair = fc.oneof(
    ...names.map((p) => fc.tuple(fc.constant(p.name), fc.oneof(valueFor(p.schema, resolve, 0, p.name).map(String), hostileShortString, idLike)).map(([k, v]) => `${encode(k)}=${encode(v)}`)),
    fc.tuple(fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('__proto__', 'constructor', '__proto__[x]', 'a[b]', 'limit[]', '')), hostileShortString).map(([k, v]) => `${encode(k)}=${encode(v)}`),
    fc.constantFrom('limit=1e3', 'limit=-0', 'limit=0x10', 'limit=1.5', 'limit= 7', 'limit', '=x', '&&', '%', '%zz=1', 'limit=%', 'limit=1&limit=2', 'cursor=&cursor=', 'a=%00', 'cursor=%00', 'email=%00', 'agent_id=%00', 'status=%00'),
  );
  return fc.array(pair, { maxLength: 4 }).map((pairs) => pairs.join('&'));
}

const headerValue = fc.string({ unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(0x09)).map((c) => String.fromCharCode(c)), maxLength: 60 });

const CONTENT_TYPES = [
  'application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json;charset=UTF-8', 'application/json; charset=latin1',
  'application/json; charset=utf-16', 'application/json;', 'application/jsonx', 'application/problem+json', 'application/merge-patch+json',
  'text/plain', 'text/json', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', '*/*', 'application/octet-stream', '',
];
export const contentType = fc.oneof({ weight: 12, arbitrary: fc.constant('application/json') }, { weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES) }, { weight: 1, arbitrary: headerValue });

/**
 * Gatehouse-Organization (issue 21: which organization an access token acts for), on some
 * requests: the world's team (`@live:organizations@`, replaced when the request is built), an
 * organization id that names nothing (403 not_a_member), or not an id at all (400 invalid_request).
 */
const organizationHeader: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.constant('@live:organizations@') },
  { weight: 1, arbitrary: typeIdBody.map((b) => `org_${b}`) },
  { weight: 1, arbitrary: fc.oneof(idLike, headerValue, fc.constantFrom('', ' ', 'org_', 'ORG_01JD4Z3K8X2V6N9Q7W5E3R1T0Y', 'me', 'personal')) },
);

/** Junk for the headers the API reads, and unknown ones. (Authorization has its own suite.) */
const otherHeaders: fc.Arbitrary<Record<string, string>> = fc.record(
  {
    'idempotency-key': fc.oneof(fc.string({ unit: 'binary-ascii', maxLength: 20 }), headerValue, fc.constantFrom('', ' ', 'a'.repeat(255), 'a'.repeat(256), 'k\u00e9y', 'same-key'), trickyText.map(encode)),
    accept: fc.oneof(fc.constantFrom('application/json', 'text/html', 'application/xml', '*/*', 'application/problem+json', ''), headerValue),
    'x-request-id': fc.oneof(headerValue, fc.constant('a'.repeat(500))),
    'accept-encoding': fc.constantFrom('gzip', 'br', 'identity', '*', 'x'),
    'x-forwarded-for': fc.oneof(headerValue, fc.constantFrom('1.2.3.4', '::1, 10.0.0.1', 'unknown')),
    'x-http-method-override': fc.constantFrom('DELETE', 'GET', 'TRACE'),
    'x-fuzz': headerValue,
  },
  { requiredKeys: [] },
);
export const extraHeaders: fc.Arbitrary<Record<string, string>> = fc
  .tuple(otherHeaders, organizationHeader)
  .map(([headers, organization]) => (organization === undefined ? headers : { ...headers, 'gatehouse-organization': organization }));

/** Content-Length that disagrees with the body (inject sends what it is told). */
export const contentLengthSkew = fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(-1, 1, 7, 1_000_000, 'abc', '', '1, 2', '00') });

export type Credential = 'access_token' | 'api_key' | 'none' | 'junk';
export const credential: fc.Arbitrary<Credential> = fc.oneof({ weight: 6, arbitrary: fc.constant('access_token' as const) }, { weight: 2, arbitrary: fc.constant('api_key' as const) }, fc.constantFrom('none' as const, 'junk' as const));

export const anyOperationBody = (op: Operation) => Object.keys(op.bodies).length > 0;
