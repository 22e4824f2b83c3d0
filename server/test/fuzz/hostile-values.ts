import fc from 'fast-check';

/**
 * Strings and JSON fragments that break naive servers: encodings, sizes, parser and database
 * metacharacters, prototype keys. Shared by the endpoint and round-trip properties.
 */

/** Text that must survive storage unchanged (no control characters, no NUL, no lone surrogates). */
export const TRICKY_TEXT = [
  '👩‍👩‍👧‍👦', '🏳️‍🌈', '🧑🏽‍💻', '👍🏿', '🇺🇦🇯🇵', '❤️', '1️⃣', // ZWJ sequences, modifiers, flags, keycaps
  'مرحبا بالعالم', 'שלום עולם', 'abc\u202Edcba\u202C', '\u200F\u200E', // RTL and bidi controls (format, not Cc)
  'e\u0301', 'Z̴̡̛̤̖a̶͈͂l̷̰̈g̸̙̍ơ̷͉', 'ﬁ', 'Å', 'Å', // combining marks, ligature, NFC vs NFD twins
  "' OR '1'='1", '"; DROP TABLE users; --', '/* */', '%_%', '\\%', "O'Brien", '--', ';', // SQL
  '<script>alert(1)</script>', '&amp;&lt;&#0;', '<img src=x onerror=alert(1)>', '{{7*7}}', '${7*7}', // HTML and templates
  '\\', '\\\\', '\\u0000', '\\n', 'C:\\Windows\\', '"', "'", '`', // backslashes and quotes (as text, not escapes)
  '𝕳𝖊𝖑𝖑𝖔', '𠜎𠜱', '\uFEFFbom', 'a\u200Bb', 'a\u2028b\u2029c', '\uFFFD', '\uFFFF', '\uE000', // astral, BOM, ZWSP, separators
  'null', 'undefined', 'true', '0', '-1', 'NaN', '[]', '{}', '__proto__', 'constructor',
];

export const trickyFragment = fc.constantFrom(...TRICKY_TEXT);

/** Printable text made of tricky fragments and arbitrary graphemes. */
export const trickyText = fc
  .array(fc.oneof({ weight: 3, arbitrary: trickyFragment }, { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }) }), { minLength: 1, maxLength: 6 })
  .map((parts) => parts.join(''));

export const LONE_SURROGATES = ['\uD800', '\uDBFF', '\uDC00', 'a\uDFFFb', '\uDC00\uD800', 'x\uD83D'];
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

/** Short hostile strings: fit in a URL or a header (Node refuses request heads over 16 KiB with 431). */
export const hostileShortString: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: trickyText },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 40 }) },
  // What databases choke on (PostgreSQL text refuses NUL) gets the most weight.
  { weight: 3, arbitrary: fc.constantFrom('\u0000', 'a\u0000b', '\u0000'.repeat(5), ...LONE_SURROGATES, '\r\n', '\t', '\u001b[31m', '\u007f', '\u0085', '') },
  { weight: 1, arbitrary: fc.constantFrom(...PROTO_KEYS) },
  { weight: 1, arbitrary: fc.constantFrom(65, 201, 1_000).map((n) => 'x'.repeat(n)) },
);

/** Strings past every field limit, some past the body limit once encoded (413). */
export const hugeString = fc.constantFrom(70_000, 300_000).chain((n) => fc.constantFrom('x', 'é', '😀').map((c) => c.repeat(n)));

/** Any string a client could put in JSON, including the ones nobody should store. */
export const hostileString: fc.Arbitrary<string> = fc.oneof({ weight: 6, arbitrary: hostileShortString }, { weight: 1, arbitrary: hugeString });

/** Raw JSON number texts that JSON.parse accepts but typed code may not. */
export const oddNumberText = fc.constantFrom('1e309', '-1e309', '-0', '1.0', '1e2', '9007199254740993', '0.1', '-1', '4294967296', '1e-400', '123456789012345678901234567890');

/** A JSON value as text, nested `depth` levels (arrays or objects), to find recursion limits. */
export const deeplyNestedText = fc
  .tuple(fc.constantFrom(64, 5_000, 200_000), fc.constantFrom('array', 'object', 'proto'))
  .map(([depth, kind]) => {
    if (kind === 'array') return '['.repeat(depth) + ']'.repeat(depth);
    if (kind === 'object') return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    return '{"a":'.repeat(depth) + '{"__proto__":{"x":1}}' + '}'.repeat(depth);
  });

export const protoKey = fc.constantFrom(...PROTO_KEYS);

/** Random JSON values built by fast-check (objects may carry prototype keys as own keys). */
export const randomJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null), fc.boolean(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), hostileString,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string({ maxLength: 12 }), protoKey), tie('value'), { maxKeys: 4 }),
  ),
})).value;
