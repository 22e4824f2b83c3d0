import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../src/kernel/errors.js';

/** docs/ERRORS.md is the human copy of the error catalogue; it must not drift from the code. */
describe('docs/ERRORS.md', () => {
  const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'ERRORS.md'), 'utf8');
  it.each(Object.entries(ERROR_CATALOGUE))('lists %s with its status and title', (code, { status, title }) => {
    expect(doc).toContain(`| \`${code}\` | ${status} | ${title} |`);
  });
});

const root = join(import.meta.dirname, '..', '..');

/**
 * docs/SECURITY.md names, for each threat, the test that proves its defence
 * (`path` › "test name", "another"): each must exist, or the row proves nothing. A name that
 * starts with "…" is the end of a longer one.
 */
describe('docs/SECURITY.md', () => {
  const rows = readFileSync(join(root, 'docs', 'SECURITY.md'), 'utf8').split('\n').filter((line) => line.startsWith('| '));
  const cited = rows.flatMap((row) => {
    const testCell = row.split(' | ').at(-1) ?? '';
    return [...testCell.matchAll(/`([\w./-]+\.test\.tsx?)`\s*›\s*((?:"(?:[^"\\]|\\.)*"(?:,\s*)?)+)/g)].flatMap(([, path, names]) =>
      [...names!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map(([, name]) => ({ path: path!, name: name!.replace(/\\"/g, '"').replace(/^… /, '') })));
  });

  it('cites tests (the parse finds them)', () => {
    expect(cited.length).toBeGreaterThan(100);
  });

  it.each(cited.map((c) => [c.path, c.name] as const))('%s › %s exists', (path, name) => {
    const file = join(root, path);
    expect(existsSync(file), `${path} is not in the repository`).toBe(true);
    const source = readFileSync(file, 'utf8');
    expect(source.includes(name) || source.includes(name.replace(/'/g, "\\'")), `no test named "${name}" in ${path}`).toBe(true);
  });
});

describe('docs/README.md', () => {
  it('lists every doc in docs/', () => {
    const index = readFileSync(join(root, 'docs', 'README.md'), 'utf8');
    const docs = readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md') && name !== 'README.md');
    expect(docs.filter((name) => !index.includes(`\`${name}\``))).toEqual([]);
  });
});
