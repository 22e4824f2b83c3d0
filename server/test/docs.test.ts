import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../src/core/errors.js';

/** docs/ERRORS.md is the human copy of the error catalogue; it must not drift from the code. */
describe('docs/ERRORS.md', () => {
  const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'ERRORS.md'), 'utf8');
  it.each(Object.entries(ERROR_CATALOGUE))('lists %s with its status and title', (code, { status, title }) => {
    expect(doc).toContain(`| \`${code}\` | ${status} | ${title} |`);
  });
});
