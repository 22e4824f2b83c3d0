import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** Where a tested value sits in the request, and what sqlmap calls it in its log. */
export interface InjectionPoint {
  where: 'query' | 'json' | 'path';
  /** Query or JSON field name; for 'path', the id whose segment carries the `*` marker. */
  key: string;
  /** sqlmap's name for it: `limit`, `JSON name`, `#1*`. */
  sqlmapName: string;
}

export interface SqlmapTarget {
  name: string;
  method: 'GET' | 'POST' | 'PATCH';
  /** Path and query on the server; a `*` after a path segment marks it as an injection point. */
  path: string;
  body?: Record<string, unknown>;
  bearer?: string;
  points: InjectionPoint[];
  level: number;
  risk: number;
  /** Python run by sqlmap before each request (`--eval`), e.g. a fresh email per registration. */
  eval?: string;
  /** Statuses that would mean sqlmap was not really testing (no credential, throttled). */
  refused?: number[];
  /** Statuses sqlmap should compare like any page instead of stopping (login answers 401). */
  ignoreCodes?: number[];
}

export interface SqlmapRun {
  output: string;
  code: number | null;
  timedOut: boolean;
}

export interface Dbms {
  /** sqlmap's --dbms value. */
  name: 'SQLite' | 'PostgreSQL';
  /** Boolean, error (PostgreSQL only: sqlmap has no SQLite error payloads), union, stacked, time. */
  techniques: string;
}

export const SQLITE: Dbms = { name: 'SQLite', techniques: 'BUST' };
export const POSTGRES: Dbms = { name: 'PostgreSQL', techniques: 'BEUST' };

export function sqlmapVersion(): string | null {
  const probe = spawnSync('sqlmap', ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return probe.status === 0 ? probe.stdout.trim().split('\n')[0]! : null;
}

export function sqlmapArgs(target: SqlmapTarget, base: string, proxy: string, dbms: Dbms, outputDir: string): string[] {
  const args = [
    '-u', base + target.path, '--method', target.method,
    '--batch', '--flush-session', '--output-dir', outputDir, '--proxy', proxy,
    '--level', String(target.level), '--risk', String(target.risk),
    '--technique', dbms.techniques, '--dbms', dbms.name,
    '--skip-waf', '--disable-coloring', '--timeout', '15', '--retries', '1',
  ];
  if (target.body) args.push('--data', JSON.stringify(target.body));
  if (target.bearer) args.push('--headers', `Authorization: Bearer ${target.bearer}`);
  if (target.eval) args.push('--eval', target.eval);
  if (target.ignoreCodes) args.push(`--ignore-code=${target.ignoreCodes.join(',')}`);
  // A `*` marker names its own point; otherwise only the listed fields (not headers or cookies).
  if (!target.path.includes('*')) args.push('-p', target.points.map((p) => p.key).join(','));
  return args;
}

/** One sqlmap process over one target, killed (process group) when over its budget. */
export function runSqlmap(args: string[], workDir: string, budgetMs: number): Promise<SqlmapRun> {
  mkdirSync(workDir, { recursive: true });
  return new Promise((resolve, reject) => {
    // A bare environment: no http_proxy/no_proxy from the caller, no TTY escapes, history kept in workDir.
    const child = spawn('sqlmap', args, {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: workDir, TERM: 'dumb', LANG: 'C.UTF-8' },
      cwd: workDir, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ }
    }, budgetMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ output, code, timedOut });
    });
  });
}

export interface SqlmapVerdict {
  /** Lines where sqlmap claims (or suspects, from a database error) an injection. */
  injectable: string[];
  /** Names of the parameters sqlmap finished testing without finding anything. */
  cleared: string[];
  /** Its "HTTP error codes detected" summary lines for 5xx answers. */
  serverErrors: string[];
  critical: string[];
}

const INJECTABLE = [
  /sqlmap identified the following injection point/i,
  /parameter '.*' is vulnerable/i,
  /parameter '.*' might be injectable/i, // the heuristic saw a database error message
  /parameter '.*' is '.*' injectable/i,
];
/**
 * A first suspicion, which sqlmap then re-checks ("checking if the injection point ... is a false
 * positive"); it counts only if sqlmap did not end with "does not seem to be injectable" for it.
 */
const SUSPECTED = /parameter '(.+?)' appears to be '.*' injectable/i;

export function readVerdict(output: string): SqlmapVerdict {
  const lines = output.split(/\r?\n/);
  const cleared = lines.flatMap((l) => /parameter '(.+)' does not seem to be injectable/.exec(l)?.[1] ?? []);
  return {
    injectable: lines.filter((l) => INJECTABLE.some((re) => re.test(l)) || (SUSPECTED.test(l) && !cleared.includes(SUSPECTED.exec(l)![1]!))),
    cleared,
    serverErrors: lines.filter((l) => /^5\d\d \(.*\) - \d+ times/.test(l.trim())),
    // "Heavily dynamic" is a notice, not a stop: every answer to a creating POST has a new id.
    critical: lines.filter((l) => /\[CRITICAL\]/.test(l) && !/appears to be heavily dynamic/.test(l)),
  };
}

export const workDirFor = (root: string, target: SqlmapTarget) => join(root, target.name.replace(/[^a-z0-9]+/gi, '-'));
