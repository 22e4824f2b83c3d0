import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { dialect } from '../harness.js';
import { fuzzParameters } from './fuzz-settings.js';
import { createFuzzWorld } from './fuzz-world.js';
import { problemViolations } from './response-oracle.js';
import { storedFields, type StoredField } from './stored-fields.js';
import { displayText, freeText, loneSurrogate, nul, withIntruder } from './stored-text.js';

/**
 * Property 4: what a client stores comes back byte for byte — emoji and ZWJ sequences, RTL and
 * bidi controls, combining marks, SQL and HTML metacharacters, backslashes, quotes, text at the
 * length limit — from the write's answer, GET by id and the list. NUL and lone surrogates are
 * refused with 400 validation_failed naming the field: PostgreSQL text cannot hold NUL, and a
 * lone surrogate has no UTF-8 form (it would come back as U+FFFD, silently changed).
 */
const world = await createFuzzWorld();
const fields = storedFields(world);
afterAll(() => world.close());

const valueFor = (field: StoredField) => (field.kind === 'display' ? displayText(field.max) : freeText(field.max));
const utf8 = (s: string) => Buffer.from(s, 'utf8').toString('hex');

async function expectRefused(field: StoredField, value: string): Promise<void> {
  const res = await field.write(value);
  const context = `${field.name} = ${JSON.stringify(value).slice(0, 120)}: ${res.statusCode} ${res.body.slice(0, 300)}`;
  expect(res.statusCode, context).toBe(400);
  expect(problemViolations(res), context).toEqual([]);
  const body = res.json();
  expect(body.code, context).toBe('validation_failed');
  expect(body.errors.map((e: { field: string }) => e.field), context).toContain(field.pointer);
}

describe(`stored text comes back byte for byte (${dialect})`, () => {
  for (const field of fields) {
    it(`${field.name}: round-trips exactly`, async () => {
      await fc.assert(
        fc.asyncProperty(valueFor(field), async (value) => {
          const written = await field.write(value);
          expect(written.statusCode, `${field.name} = ${JSON.stringify(value).slice(0, 200)}: ${written.body.slice(0, 300)}`).toBeLessThan(300);
          const readBack = await field.readBack(written);
          // Hex of the UTF-8 bytes: a diff shows which bytes changed (normalization, trimming, U+FFFD).
          expect(readBack.map(utf8), `${field.name} = ${JSON.stringify(value).slice(0, 200)}`).toEqual(readBack.map(() => utf8(value)));
          await field.cleanup?.(written);
        }),
        fuzzParameters(0.5),
      );
    });

    it(`${field.name}: refuses NUL with 400 validation_failed`, async () => {
      await fc.assert(fc.asyncProperty(withIntruder(valueFor(field), nul), (value) => expectRefused(field, value)), fuzzParameters(0.25));
    });

    it(`${field.name}: refuses lone surrogates with 400 validation_failed`, async () => {
      await fc.assert(fc.asyncProperty(withIntruder(valueFor(field), loneSurrogate), (value) => expectRefused(field, value)), fuzzParameters(0.25));
    });
  }
});
