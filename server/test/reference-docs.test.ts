/**
 * docs/reference/ cannot drift from the code: the command line's page carries every command's
 * `--help` text as the CLI prints it (generated: `npm run docs:reference -w server`), and the
 * configuration page names every environment variable the server reads, and no other.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HELP } from '../src/cli.js';
import { loadConfig } from '../src/config.js';
import { CLI_PAGE, withGeneratedPart } from '../scripts/reference-docs.mjs';

const REFERENCE = join(import.meta.dirname, '..', '..', 'docs', 'reference');

describe('docs/reference/cli.md', () => {
  it("holds every command's --help as the CLI prints it (else: npm run docs:reference -w server)", () => {
    const page = readFileSync(CLI_PAGE, 'utf8');
    expect(page).toBe(withGeneratedPart(page, HELP));
  });
});

describe('docs/reference/configuration.md', () => {
  // Every variable loadConfig reads, found by handing it an environment that records each look-up.
  const read = new Set<string>();
  loadConfig(new Proxy({} as Record<string, string>, {
    get: (_target, name) => void (typeof name === 'string' && read.add(name)),
    has: (_target, name) => (typeof name === 'string' && read.add(name), false),
  }));
  const page = readFileSync(join(REFERENCE, 'configuration.md'), 'utf8');
  const documented = new Set([...page.matchAll(/`([A-Z][A-Z0-9_]{2,})`/g)].map(([, name]) => name!));

  it('reads the variables (the probe works)', () => {
    expect(read).toContain('DATABASE_URL');
    expect(read.size).toBeGreaterThan(40);
  });

  it.each([...read].sort())('documents %s', (name) => {
    expect(documented.has(name), `${name} is read by server/src/config.ts but not in docs/reference/configuration.md`).toBe(true);
  });

  it('documents no variable the server does not read', () => {
    // Names in the page that are not variables: the ones that appear only as values or examples.
    const variables = [...documented].filter((name) => page.includes(`| \`${name}\``) || page.includes(`, \`${name}\``));
    expect(variables.filter((name) => !read.has(name))).toEqual([]);
  });
});

describe('docs/reference/endpoints.md', () => {
  // The committed OpenAPI document (the SDK's drift test keeps it equal to the server's).
  const document = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'sdk', 'openapi.json'), 'utf8')) as { paths: Record<string, unknown> };
  const page = readFileSync(join(REFERENCE, 'endpoints.md'), 'utf8');
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  it.each(Object.keys(document.paths))('lists %s', (path) => {
    // Written whole, or after the first of a list without its /v1 (`POST /v1/auth/register`, `/auth/login`).
    const forms = [path, path.replace(/^\/v1(?=\/)/, '')].map((form) => new RegExp(`${escape(form)}(?=[\`,;?\\s)])`));
    expect(forms.some((form) => form.test(page)), `${path} is in the OpenAPI document but not in docs/reference/endpoints.md`).toBe(true);
  });
});
