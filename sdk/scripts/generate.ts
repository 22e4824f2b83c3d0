/**
 * `npm run sdk:generate` (from the repository root): rewrites sdk/openapi.json and
 * sdk/src/generated/openapi.ts from the server's current routes. Run it after changing any route
 * schema; test/drift.test.ts fails until you do.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { dirname } from 'node:path';
import { generate, GENERATED_FILES } from './openapi-source.js';

const { document, types, routes } = await generate();
for (const [file, text] of [[GENERATED_FILES.document, document], [GENERATED_FILES.types, types], [GENERATED_FILES.routes, routes]] as const) {
  await mkdir(dirname(fileURLToPath(file)), { recursive: true });
  await writeFile(file, text);
  console.log(`wrote ${fileURLToPath(file)}`);
}
