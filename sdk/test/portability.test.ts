/**
 * The SDK runs unchanged in browsers, React Native, Deno and Bun: it bundles for the browser
 * with nothing marked external, and its source uses no Node-only module or global. (What npm
 * pack makes of it, installed elsewhere: package.test.ts.)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const SDK_DIR = join(import.meta.dirname, '..');
const SRC_DIR = join(SDK_DIR, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Source without comments, so prose mentioning Node does not count as a use of it. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
}

describe('portability', () => {
  it('bundles for the browser with no externals, and the bundle requires nothing from Node', async () => {
    const result = await build({
      entryPoints: [join(SRC_DIR, 'index.ts')],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2020',
      write: false,
      logLevel: 'silent',
      metafile: true,
    });
    expect(result.errors).toEqual([]);
    const bundle = result.outputFiles[0]!.text;
    expect(bundle).toContain('createGatehouse');
    expect(bundle).not.toMatch(/\bnode:/);
    expect(bundle).not.toMatch(/\brequire\(/);
    expect(bundle).not.toMatch(/^\s*import\s/m);
    // Every input is the SDK's own source: no dependency came along.
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((p) => !p.startsWith('src/') && !p.includes('/sdk/src/'))).toEqual([]);
  });

  it('has no Node-only imports or globals in src (node:, process, Buffer, require, __dirname)', () => {
    const offences: string[] = [];
    for (const file of sourceFiles(SRC_DIR)) {
      const lines = code(readFileSync(file, 'utf8')).split('\n');
      lines.forEach((line, i) => {
        if (/\bfrom\s+['"]node:|import\(\s*['"]node:|\bprocess\.|\bBuffer\b|\brequire\(|__dirname|__filename/.test(line)) {
          offences.push(`${relative(SDK_DIR, file)}:${i + 1}: ${line.trim()}`);
        }
      });
      // Imports stay inside the package: relative paths only (zero runtime dependencies).
      for (const [, spec] of code(readFileSync(file, 'utf8')).matchAll(/\bfrom\s+['"]([^'"]+)['"]/g)) {
        if (!spec!.startsWith('.')) offences.push(`${relative(SDK_DIR, file)}: imports ${spec}`);
      }
    }
    expect(offences).toEqual([]);
  });

  it('declares no runtime dependencies', () => {
    const pkg = JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.peerDependencies ?? {}).toEqual({});
  });
});
