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
  routes: new URL('../src/generated/routes.ts', import.meta.url),
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

interface DocumentOperation {
  operationId?: string;
  security?: unknown[];
  parameters?: { in: string; name: string }[];
  'x-gatehouse-auth'?: { api_keys: boolean };
}

/**
 * The per-operation table (method, path, and the traits the client acts on) read from the
 * document: public = an empty security list; optionalSession = a security list that offers no
 * credential (`{}`) besides a bearer one; idempotent = the operation takes an Idempotency-Key
 * header; sessionOnly = x-gatehouse-auth says API keys are refused.
 */
export function renderRoutes(doc: Record<string, unknown>): string {
  const lines: string[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, DocumentOperation>>)) {
    for (const method of ['get', 'put', 'post', 'patch', 'delete']) {
      const op = item[method];
      if (!op?.operationId) continue;
      const traits = [`at: ['${method.toUpperCase()}', '${path}']`];
      if (Array.isArray(op.security) && op.security.length === 0) traits.push('public: true');
      else if (Array.isArray(op.security) && op.security.some((requirement) => Object.keys(requirement as object).length === 0)) traits.push('optionalSession: true');
      if ((op.parameters ?? []).some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key')) traits.push('idempotent: true');
      if (op['x-gatehouse-auth']?.api_keys === false) traits.push('sessionOnly: true');
      lines.push(`  ${op.operationId}: { ${traits.join(', ')} },`);
    }
  }
  return `// Generated from the server's OpenAPI document by scripts/openapi-source.ts (npm run sdk:generate). Do not edit.\n\nexport const GENERATED_ROUTES = {\n${lines.join('\n')}\n} as const;\n`;
}

/** Every generated file's contents, from the server's current source. */
export async function generate(): Promise<{ document: string; types: string; routes: string }> {
  const doc = await buildOpenApiDocument();
  return { document: renderDocument(doc), types: await renderTypes(doc), routes: renderRoutes(doc) };
}
