// `npm run build` of a published workspace (sdk/, react-native/), run in its folder: dist/esm
// (import) from tsconfig.build.json and dist/cjs (require) from tsconfig.cjs.json, each with
// its declarations. Each half gets a package.json naming its module kind, so Node and
// TypeScript read the .js and .d.ts files under it as ESM or CommonJS whatever the package says.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const dir = process.cwd();
const tscBin = createRequire(join(dir, 'package.json')).resolve('typescript/bin/tsc');
const tsc = (project) => execFileSync(process.execPath, [tscBin, '-p', join(dir, project)], { stdio: 'inherit' });
rmSync(join(dir, 'dist'), { recursive: true, force: true });
tsc('tsconfig.build.json');
tsc('tsconfig.cjs.json');
writeFileSync(join(dir, 'dist/esm/package.json'), `${JSON.stringify({ type: 'module' })}\n`);
writeFileSync(join(dir, 'dist/cjs/package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
