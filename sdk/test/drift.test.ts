/**
 * The SDK cannot drift from the server: regenerate the OpenAPI document and the types from the
 * server's current source, in memory, and compare with what is committed.
 * On failure: run `npm run sdk:generate` and commit sdk/openapi.json and sdk/src/generated/.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { generate, GENERATED_FILES } from '../scripts/openapi-source.js';

it('committed openapi.json, src/generated/openapi.ts and routes.ts match the server (else: npm run sdk:generate)', async () => {
  const fresh = await generate();
  const committed = {
    document: readFileSync(fileURLToPath(GENERATED_FILES.document), 'utf8'),
    types: readFileSync(fileURLToPath(GENERATED_FILES.types), 'utf8'),
    routes: readFileSync(fileURLToPath(GENERATED_FILES.routes), 'utf8'),
  };
  // Compared as text so the failure shows the diff; the document first, as it is the cause.
  expect(committed.document, 'sdk/openapi.json is stale: run npm run sdk:generate').toBe(fresh.document);
  expect(committed.types, 'sdk/src/generated/openapi.ts is stale: run npm run sdk:generate').toBe(fresh.types);
  expect(committed.routes, 'sdk/src/generated/routes.ts is stale: run npm run sdk:generate').toBe(fresh.routes);
}, 60_000);
