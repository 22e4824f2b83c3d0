/**
 * Where the SDK's types come from: the server's own OpenAPI document, built in-process (no port,
 * no running server) and turned into TypeScript by openapi-typescript. scripts/generate.ts writes
 * the result; test/drift.test.ts recomputes it and fails when the committed files differ, so the
 * SDK cannot silently drift from the server.
 */
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { buildApp } from '../../server/src/app.js';
import { loadConfig } from '../../server/src/config.js';
import { createDependencies } from '../../server/src/dependencies.js';

/** Fixed inputs: the document embeds PUBLIC_URL (servers, links), so it must not vary by machine. */
const GENERATION_ENV = {
  DATABASE_URL: 'sqlite::memory:',
  PUBLIC_URL: 'http://localhost:8080',
  LOG_LEVEL: 'silent',
} as const;

export const GENERATED_FILES = {
  document: new URL('../openapi.json', import.meta.url),
  types: new URL('../src/generated/openapi.ts', import.meta.url),
} as const;

/** GET /v1/openapi.json from a throwaway app on an in-memory database. */
export async function buildOpenApiDocument(): Promise<Record<string, unknown>> {
  const deps = await createDependencies(loadConfig({ ...GENERATION_ENV }));
  try {
    const app = await buildApp(deps);
    try {
      await app.ready();
      const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
      if (res.statusCode !== 200) throw new Error(`GET /v1/openapi.json answered ${res.statusCode}: ${res.body}`);
      return res.json() as Record<string, unknown>;
    } finally {
      await app.close();
    }
  } finally {
    await deps.close();
  }
}

/** The document as committed (stable key order comes from the server; two-space indent, final newline). */
export function renderDocument(doc: Record<string, unknown>): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** TypeScript declarations for paths, operations (by operationId) and components. */
export async function renderTypes(doc: Record<string, unknown>): Promise<string> {
  // openapi-typescript resolves $refs in place: give it a copy so `doc` stays the served document.
  const ast = await openapiTS(structuredClone(doc) as unknown as Parameters<typeof openapiTS>[0], { silent: true });
  const banner = `${COMMENT_HEADER.trimEnd()}\n// Source: GET /v1/openapi.json of the server in ../../server. Regenerate with \`npm run sdk:generate\`.\n\n`;
  return banner + astToString(ast);
}

/** Both generated files' contents, from the server's current source. */
export async function generate(): Promise<{ document: string; types: string }> {
  const doc = await buildOpenApiDocument();
  return { document: renderDocument(doc), types: await renderTypes(doc) };
}
