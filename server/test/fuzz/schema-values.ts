import fc from 'fast-check';
import { hostileShortString } from './hostile-values.js';
import type { JsonSchema } from './openapi-operations.js';

/**
 * Values shaped by a route's JSON Schema (so requests get past validation and reach handlers,
 * services and the database), and mutations of them (so they do not). Covers the keywords the
 * TypeBox schemas here use; anything unknown becomes an arbitrary JSON value.
 */
type Resolve = (schema: JsonSchema) => JsonSchema;
const MAX_DEPTH = 4;

/**
 * A string the schema accepts; a third of them hostile (NUL, lone surrogates, SQL, huge within
 * the bound), since schema-valid is exactly what reaches services and the database.
 */
function stringFor(schema: JsonSchema): fc.Arbitrary<string> {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : undefined;
  const fits = (s: string) => [...s].length >= min && [...s].length <= max && (!pattern || pattern.test(s));
  // chain, not filter: a strict pattern may accept no hostile string at all.
  const hostile = fc.oneof(hostileShortString, hostileShortString.map((h) => `a${h}@example.com`)).chain((h) => (fits(h) ? fc.constant(h) : plainStringFor(schema)));
  return fc.oneof({ weight: 2, arbitrary: plainStringFor(schema) }, { weight: 1, arbitrary: hostile });
}

function plainStringFor(schema: JsonSchema): fc.Arbitrary<string> {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = Math.min(typeof schema.maxLength === 'number' ? schema.maxLength : 40, 40);
  if (schema.format === 'email') return fc.emailAddress();
  if (schema.format === 'date-time') return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
  if (schema.format === 'uri') return fc.webUrl();
  if (typeof schema.pattern === 'string') {
    // `^[…]+$` with a minLength beyond what stringMatching tends to make (a PKCE verifier's 43):
    // ask for the length in the pattern itself, or filtering would search forever.
    const repeated = /^\^(\[[^\]]+\])[+*]\$$/.exec(schema.pattern);
    const pattern = repeated && min > 1 ? new RegExp(`^${repeated[1]}{${min},${Math.max(min, max)}}$`, 'u') : new RegExp(schema.pattern, 'u');
    // stringMatching cannot build every pattern (\p{…} classes); filtering graphemes covers those.
    let matching: fc.Arbitrary<string>;
    try {
      matching = fc.stringMatching(pattern);
    } catch {
      matching = fc.string({ unit: 'grapheme', minLength: Math.max(min, 1), maxLength: Math.max(max, 1) }).filter((s) => pattern.test(s));
    }
    return matching.filter((s) => [...s].length >= min && [...s].length <= (schema.maxLength as number | undefined ?? Infinity));
  }
  return fc.string({ unit: 'grapheme', minLength: min, maxLength: Math.max(min, max) });
}

/**
 * Stands for the id of a live fixture in a `*_id` field (`agent_id` → agents); the request
 * builder swaps in the current id, since fixtures are re-created as the fuzzer deletes them.
 */
export const livePlaceholder = (collection: string) => `@live:${collection}@`;

/** A value that should pass the schema (modulo semantic checks such as password strength). */
export function valueFor(schemaIn: JsonSchema, resolve: Resolve, depth = 0, name = ''): fc.Arbitrary<unknown> {
  const schema = resolve(schemaIn);
  const plain = shapedValue(schema, resolve, depth);
  const hints: Array<fc.Arbitrary<unknown>> = [];
  if ('example' in schema) hints.push(fc.constant(schema.example));
  if (schema.type === 'string' && name.endsWith('_id')) hints.push(fc.constant(livePlaceholder(`${name.slice(0, -3)}s`)));
  return hints.length ? fc.oneof({ weight: 2, arbitrary: plain }, ...hints.map((arbitrary) => ({ weight: 2, arbitrary }))) : plain;
}

function shapedValue(schema: JsonSchema, resolve: Resolve, depth: number): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((s) => valueFor(s, resolve, depth)));
  const type = Array.isArray(schema.type) ? (schema.type[0] as string) : (schema.type as string | undefined);
  switch (type) {
    case 'string': return stringFor(schema);
    case 'integer': return fc.integer({ min: (schema.minimum as number | undefined) ?? -1_000, max: Math.min((schema.maximum as number | undefined) ?? 1_000_000, Number.MAX_SAFE_INTEGER) });
    case 'number': return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean': return fc.boolean();
    case 'null': return fc.constant(null);
    case 'array': {
      const items = valueFor((schema.items as JsonSchema | undefined) ?? {}, resolve, depth + 1);
      const bounds = { minLength: (schema.minItems as number | undefined) ?? 0, maxLength: Math.min((schema.maxItems as number | undefined) ?? 4, 4) };
      return schema.uniqueItems ? fc.uniqueArray(items, { ...bounds, selector: (v) => JSON.stringify(v) }) : fc.array(items, bounds);
    }
    case 'object': return objectFor(schema, resolve, depth);
    default: return fc.jsonValue({ maxDepth: 2 });
  }
}

function objectFor(schema: JsonSchema, resolve: Resolve, depth: number): fc.Arbitrary<unknown> {
  if (depth > MAX_DEPTH) return fc.constant({});
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = (schema.required ?? []) as string[];
  const extra = schema.additionalProperties;
  if (Object.keys(properties).length === 0 && extra && typeof extra === 'object') {
    const names = (schema.propertyNames as JsonSchema | undefined) ?? { type: 'string' };
    return fc.dictionary(stringFor(names), valueFor(extra as JsonSchema, resolve, depth + 1), { maxKeys: Math.min((schema.maxProperties as number | undefined) ?? 4, 4) });
  }
  const shape = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, valueFor(v, resolve, depth + 1, k)]));
  return fc.record(shape, { requiredKeys: required.filter((k) => k in properties) });
}
