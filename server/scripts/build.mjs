#!/usr/bin/env node
/**
 * Compiles the server's TypeScript (src/, without its tests) to plain JavaScript in dist/, file for
 * file (esbuild: types are stripped, nothing is bundled or renamed), so `gatehouse` runs on Node
 * alone. Type checking is `npm run typecheck`'s job; this takes about half a second.
 *
 * A file is written only when its content changed, and each one by a rename of a finished
 * temporary file: test suites build before they spawn servers, sometimes from several processes at
 * once, and a process that starts while another builds must never read half a file. Files whose
 * source is gone are removed.
 */
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SERVER_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(SERVER_DIR, 'src');
export const DIST = join(SERVER_DIR, 'dist');

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

function sameContent(path, contents) {
  try {
    return readFileSync(path).equals(contents);
  } catch {
    return false;
  }
}

/** Builds dist/ from src/; resolves to the number of files written (0 when it was up to date). */
export async function buildServer() {
  const entryPoints = filesUnder(SRC).filter((path) => path.endsWith('.ts') && !path.endsWith('.test.ts'));
  const result = await build({
    entryPoints,
    outbase: SRC,
    outdir: DIST,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    sourcesContent: false,
    write: false,
    logLevel: 'warning',
  });
  mkdirSync(DIST, { recursive: true });
  const produced = new Set(result.outputFiles.map((file) => file.path));
  let written = 0;
  for (const file of result.outputFiles) {
    if (sameContent(file.path, file.contents)) continue;
    mkdirSync(dirname(file.path), { recursive: true });
    const temporary = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temporary, file.contents);
    renameSync(temporary, file.path);
    written++;
  }
  for (const path of filesUnder(DIST)) {
    if (!produced.has(path) && !path.endsWith('.tmp')) rmSync(path);
  }
  return written;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const written = await buildServer();
  // To stderr: `npm pack --json` (prepack runs this) keeps stdout for its JSON.
  console.error(`server: ${written === 0 ? 'dist/ is up to date' : `compiled ${written} file(s) to ${relative(process.cwd(), DIST) || '.'}`}`);
}
