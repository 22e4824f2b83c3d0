import fc from 'fast-check';
import { LONE_SURROGATES, TRICKY_TEXT } from './hostile-values.js';

/**
 * Text for the round-trip property. Display text (names, titles, descriptions of endpoints) has
 * no control characters and no surrounding whitespace — the API refuses the first and trims the
 * second, both documented; free text (message content, agent description and instructions,
 * metadata values) may hold any character but NUL. Neither holds a lone surrogate: those and NUL
 * are the refusals, tested separately.
 */
const CONTROL = /\p{Cc}/u;
const LONE = /\p{Cs}/u;
const codePoints = (s: string) => [...s];
const clip = (s: string, max: number) => codePoints(s).slice(0, max).join('');

const FREE_EXTRAS = ['\t', '\n', '\r\n', '\u001b[31mred\u001b[0m', '\u007f', '\u0085', '\u0001', '\b', '\f', '\v', '  leading and trailing  '];
const fragments = (extras: string[]) => fc.constantFrom(...TRICKY_TEXT, ...extras);

function text(extras: string[], max: number): fc.Arbitrary<string> {
  const mixed = fc.array(fc.oneof({ weight: 3, arbitrary: fragments(extras) }, { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }) }), { minLength: 1, maxLength: 8 }).map((p) => p.join(''));
  // At the limit, in code points, with characters of every UTF-8 width (1, 2, 3 and 4 bytes, and surrogate pairs in UTF-16).
  const atLimit = fc.constantFrom('a', 'é', '€', '😀', '👩‍👩‍👧‍👦').map((c) => clip(c.repeat(max), max));
  return fc.oneof({ weight: 5, arbitrary: mixed }, { weight: 1, arbitrary: atLimit }).map((s) => clip(s, max));
}

export const displayText = (max: number) => text([], max).map((s) => s.replace(new RegExp(CONTROL, 'gu'), '').trim()).filter((s) => s.length > 0 && !LONE.test(s) && codePoints(s).length <= max);
export const freeText = (max: number) => text(FREE_EXTRAS, max).filter((s) => s.length > 0 && !s.includes('\u0000') && !LONE.test(s));

/** A valid value with `intruder` spliced in somewhere. */
export function withIntruder(valid: fc.Arbitrary<string>, intruder: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(valid, intruder, fc.nat()).map(([s, bad, n]) => {
    const points = codePoints(s); // splice between code points, never inside a surrogate pair
    const at = n % (points.length + 1);
    return [...points.slice(0, at), bad, ...points.slice(at)].join('');
  });
}

export const nul = fc.constantFrom('\u0000', '\u0000\u0000', 'x\u0000');
export const loneSurrogate = fc.constantFrom(...LONE_SURROGATES);
