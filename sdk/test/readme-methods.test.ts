/**
 * The README's method table names every method a client has: walk the object createGatehouse
 * returns and look each method up in its group's row. A method added without a word in the
 * README fails here.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { createGatehouse } from '../src/index.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const methodsSection = readme.slice(readme.indexOf('## Methods'), readme.indexOf('\n## ', readme.indexOf('## Methods') + 1));
/** The table's rows, by the first cell's text (`auth`, `me`, `setOrganization(id | null)`, …). */
const rows = methodsSection.split('\n').filter((line) => line.startsWith('| `'));

/** Every function reachable from the client, as dotted paths (`me.mfa.enrolTotp`). */
function methodPaths(value: object, prefix = ''): string[] {
  return Object.entries(value).flatMap(([name, member]) => {
    const path = prefix ? `${prefix}.${name}` : name;
    if (typeof member === 'function') return [path];
    if (member && typeof member === 'object') return methodPaths(member as object, path);
    return [];
  });
}

/** A row that names the method: its group's row with `name`, `name(…)` or `sub.name` in backticks. */
function documented(path: string): boolean {
  const [group, ...rest] = path.split('.');
  const name = rest.at(-1);
  if (name === undefined) return rows.some((row) => row.startsWith(`| \`${group}`) || row.split(' | ')[0]!.includes(`\`${group}(`));
  const row = rows.find((line) => line.startsWith(`| \`${group}\` |`));
  if (!row) return false;
  const sub = rest.slice(0, -1).join('.');
  const tokens = [...row.matchAll(/`([^`]+)`/g)].map(([, token]) => token!);
  const named = tokens.some((token) => token === name || token.startsWith(`${name}(`) || token === `${sub}.${name}` || token.startsWith(`${sub}.${name}(`));
  // A sub-group's methods follow its name (`me.mfa`: `get`, …): that name must be in the row too.
  return named && (sub === '' || tokens.some((token) => token === `${group}.${sub}` || token.startsWith(`${sub}.`)));
}

const client = createGatehouse({ baseUrl: 'https://auth.example.com' });
const paths = methodPaths(client);

it('finds the client methods (the walk works)', () => {
  expect(paths.length).toBeGreaterThan(80);
  expect(paths).toContain('me.mfa.enrolTotp');
});

it.each(paths)('the README names %s', (path) => {
  expect(documented(path), `add ${path} to the method table in sdk/README.md`).toBe(true);
});
