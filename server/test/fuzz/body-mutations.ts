import fc from 'fast-check';
import { deeplyNestedText, hostileString, oddNumberText, protoKey, randomJson } from './hostile-values.js';

/**
 * JSON bodies as text: a schema-shaped value, or that value with one mutation (a wrong type, a
 * hostile string, a missing or extra or duplicated field, a prototype key, deep nesting), or
 * something that is not the expected JSON at all. Text, because JSON.stringify cannot write
 * duplicate keys, `1e309` or a million nested brackets.
 */
export class RawJson {
  constructor(readonly text: string) {}
}

export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).map((k) => `${JSON.stringify(k)}:${toJsonText((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

type Path = Array<string | number>;

/** Every position in a value (object members and array items, at any depth). */
function slotsOf(value: unknown, at: Path = []): Path[] {
  if (value instanceof RawJson || value === null || typeof value !== 'object') return [];
  const keys: Array<string | number> = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return keys.flatMap((k) => [[...at, k], ...slotsOf((value as Record<string | number, unknown>)[k], [...at, k])]);
}

/** Own enumerable data properties only, so "__proto__" stays a key and never becomes a prototype. */
function clone(value: unknown): unknown {
  if (value instanceof RawJson || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(clone);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) Object.defineProperty(out, k, { value: clone((value as Record<string, unknown>)[k]), enumerable: true, writable: true, configurable: true });
  return out;
}

function setAt(root: unknown, path: Path, replacement: unknown, remove = false): unknown {
  if (path.length === 0) return replacement;
  const copy = clone(root) as Record<string | number, unknown>;
  let node = copy;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (remove && Array.isArray(node)) node.splice(Number(last), 1);
  else if (remove) delete node[last];
  else Object.defineProperty(node, last, { value: replacement, enumerable: true, writable: true, configurable: true });
  return copy;
}

const replacement: fc.Arbitrary<unknown> = fc.oneof(
  randomJson,
  hostileString,
  oddNumberText.map((t) => new RawJson(t)),
  deeplyNestedText.map((t) => new RawJson(t)),
  fc.constantFrom(null, true, 0, -1, 1.5, [], {}, '', [null]),
);

const pick = <T>(items: T[], n: number): T | undefined => (items.length ? items[n % items.length] : undefined);
const isPlainObject = (node: unknown) => node !== null && typeof node === 'object' && !Array.isArray(node) && !(node instanceof RawJson);

/** One mutation of a schema-shaped value, as JSON text. */
function mutate(valid: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  return fc.oneof(
    fc.tuple(valid, fc.nat(), replacement).map(([v, n, r]) => toJsonText(setAt(v, pick(slotsOf(v), n) ?? [], r))),
    fc.tuple(valid, fc.nat()).map(([v, n]) => toJsonText(setAt(v, pick(slotsOf(v), n) ?? [], undefined, true))),
    fc.tuple(valid, fc.nat(), fc.oneof(protoKey, fc.string({ maxLength: 12 })), replacement).map(([v, n, key, r]) => {
      const objects = [[], ...slotsOf(v)].filter((p) => isPlainObject(p.reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], v)));
      const target = pick(objects, n);
      return toJsonText(target ? setAt(v, [...target, key], r) : v);
    }),
    // Duplicate keys: JSON.parse keeps the last one; a validator must see the same value the handler uses.
    fc.tuple(valid, replacement).map(([v, r]) => {
      const text = toJsonText(v);
      const first = v && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v)[0] : undefined;
      return first === undefined ? text : `{${JSON.stringify(first)}:${toJsonText(r)},${text.slice(1)}`;
    }),
    fc.tuple(valid, fc.nat()).map(([v, n]) => { const text = toJsonText(v); return text.slice(0, n % Math.max(text.length, 1)); }),
    valid.map((v) => `\uFEFF${toJsonText(v)}`),
  );
}

/** A body for an operation that declares this JSON schema: valid a third of the time. */
export function jsonBodyText(valid: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: valid.map(toJsonText) },
    { weight: 4, arbitrary: mutate(valid) },
    { weight: 1, arbitrary: randomJson.map(toJsonText) },
    { weight: 1, arbitrary: deeplyNestedText },
    { weight: 1, arbitrary: fc.oneof(fc.string({ unit: 'binary', maxLength: 30 }), fc.constantFrom('', 'null', '[]', '"x"', '{', '{"a":1}}', '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}', 'x'.repeat(1_100_000))) },
  );
}

/** Any JSON body at all, for operations that declare none (the framework still parses it). */
export const unexpectedBodyText: fc.Arbitrary<string> = jsonBodyText(randomJson);
