// `npm run build -w sdk`: dist/esm (import) and dist/cjs (require), each with its declarations.
// Each half gets a package.json naming its module kind, so Node and TypeScript read the .js and
// .d.ts files under it as ESM or CommonJS whatever the package's own "type" says.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const tscBin = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const tsc = (project) => execFileSync(process.execPath, [tscBin, '-p', new URL(`../${project}`, import.meta.url).pathname], { stdio: 'inherit' });
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
tsc('tsconfig.build.json');
tsc('tsconfig.cjs.json');
writeFileSync(new URL('../dist/esm/package.json', import.meta.url), `${JSON.stringify({ type: 'module' })}\n`);
writeFileSync(new URL('../dist/cjs/package.json', import.meta.url), `${JSON.stringify({ type: 'commonjs' })}\n`);
