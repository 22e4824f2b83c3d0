import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * `redocly lint` with server/redocly.yaml on an OpenAPI file, as a child process (the CLI is the
 * tool we did not write). Used by test/openapi.test.ts and the conformance suite.
 */
export const SERVER_DIR = join(import.meta.dirname, '..');

export interface LintResult {
  code: number | null;
  errors: string[];
  warnings: string[];
  totals: { errors: number; warnings: number };
}

interface LintProblem {
  ruleId: string;
  severity: string;
  message: string;
  location: { pointer: string }[];
}

function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

export async function redoclyLint(file: string, timeoutMs = 60_000): Promise<LintResult> {
  const cli = join(dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin', 'cli.js');
  const result = await run(process.execPath, [cli, 'lint', file, '--config', join(SERVER_DIR, 'redocly.yaml'), '--format=json'], {
    cwd: SERVER_DIR,
    // No telemetry, no update check: the lint runs offline.
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    timeoutMs,
  });
  const start = result.stdout.indexOf('{');
  if (start < 0) throw new Error(`redocly printed no JSON (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  const report = JSON.parse(result.stdout.slice(start)) as { totals: { errors: number; warnings: number }; problems: LintProblem[] };
  const describe = (p: LintProblem) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`;
  return {
    code: result.code,
    errors: report.problems.filter((p) => p.severity === 'error').map(describe),
    warnings: report.problems.filter((p) => p.severity === 'warn').map(describe),
    totals: report.totals,
  };
}
