import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatehouse, type Gatehouse, type Seed } from './sqlmap/gatehouse-fixture.js';
import { startRecordingProxy, type RecordedRequest } from './sqlmap/recording-proxy.js';
import { POSTGRES, readVerdict, runSqlmap, SQLITE, sqlmapArgs, sqlmapVersion, workDirFor, type InjectionPoint, type SqlmapTarget } from './sqlmap/sqlmap-runner.js';
import { gatehouseTargets } from './sqlmap/targets.js';
import { startVulnerableServer } from './sqlmap/vulnerable-server.js';

/**
 * sqlmap (Debian's, `/usr/bin/sqlmap`) against a real `gatehouse serve`: every list parameter,
 * path id and stored JSON field, with a real admin's access token or an API key. It fails when
 * sqlmap calls anything injectable, when any payload got a 5xx, or when sqlmap did not actually
 * test a point (its own log, and a recording proxy that sees the payloads reach the server).
 * A deliberately injectable canary proves the same settings and parsing do catch an injection.
 * SQLite by default; PostgreSQL (its own schema) when DATABASE_URL is set.
 */

const VERSION = sqlmapVersion();
const IN_CI = process.env.CI === 'true';
const DIALECT = process.env.DATABASE_URL ? 'postgres' : 'sqlite';
const DBMS = DIALECT === 'postgres' ? POSTGRES : SQLITE;
/** Per target; a scan here takes 3–30 s, so this only stops a hung one. */
const BUDGET_MS = 100_000;
/** sqlmap mostly waits on answers: two scans at a time halve the wall time on two cores. */
const PARALLEL_SCANS = 2;
/** Each point must have received at least this many payloads (level 1 sends ≈17, level 3 hundreds). */
const MIN_PAYLOADS = 10;
const SQL_WORDS = /\b(select|union|and|or|order by|case when|sleep|pg_sleep|randomblob|having|null)\b/i;

if (!VERSION && !IN_CI) console.warn('injection.test.ts: sqlmap not found, scans skipped (apt-get install sqlmap); it is required when CI=true');

/** The value sqlmap put at this point, if the request carries one. */
function valueAt(record: RecordedRequest, point: InjectionPoint): string | undefined {
  const url = new URL(record.path, 'http://gatehouse');
  if (point.where === 'query') return url.searchParams.get(point.key) ?? undefined;
  if (point.where === 'path') {
    const segment = decodeURIComponent(url.pathname).split('/').find((s) => s.startsWith(point.key));
    return segment?.slice(point.key.length);
  }
  try {
    const value = (JSON.parse(record.body) as Record<string, unknown>)[point.key];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

const tail = (text: string, lines = 60) => text.split('\n').slice(-lines).join('\n');

/** At most `size` callers inside at once. */
function slots(size: number) {
  let free = size;
  const waiting: (() => void)[] = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (free > 0) free--;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
}

describe('sqlmap', () => {
  it('is installed (required when CI=true)', (ctx) => {
    if (!VERSION && !IN_CI) ctx.skip();
    expect(VERSION, 'sqlmap is missing: apt-get install sqlmap').toMatch(/^\d+\.\d+/);
  });
});

describe.skipIf(!VERSION)(`sqlmap ${VERSION ?? ''} finds no SQL injection in Gatehouse (${DIALECT})`, () => {
  let workRoot: string;
  let gatehouse: Gatehouse;
  let targets: SqlmapTarget[];
  const scan = slots(PARALLEL_SCANS);

  beforeAll(async () => {
    workRoot = mkdtempSync(join(tmpdir(), 'sqlmap-'));
    gatehouse = await startGatehouse();
    targets = gatehouseTargets(gatehouse.seed);
  });
  afterAll(async () => {
    await gatehouse?.close();
    if (workRoot) rmSync(workRoot, { recursive: true, force: true });
  });

  it('the canary: the same settings flag a string-built query, in a query parameter and a JSON body', async () => {
    const canary = await startVulnerableServer();
    const canaryProxy = await startRecordingProxy(canary.base);
    try {
      const probes: SqlmapTarget[] = [
        { name: 'canary query', method: 'GET', path: '/items?id=1', points: [{ where: 'query', key: 'id', sqlmapName: 'id' }], level: 1, risk: 1 },
        { name: 'canary json', method: 'POST', path: '/items', body: { name: 'alpha' }, points: [{ where: 'json', key: 'name', sqlmapName: 'JSON name' }], level: 1, risk: 1 },
      ];
      for (const probe of probes) {
        const run = await runSqlmap(sqlmapArgs(probe, canary.base, canaryProxy.url, SQLITE, workDirFor(workRoot, probe)), workDirFor(workRoot, probe), BUDGET_MS);
        expect(readVerdict(run.output).injectable.length, `${probe.name}:\n${tail(run.output)}`).toBeGreaterThan(0);
        expect(canaryProxy.take().length).toBeGreaterThan(0);
      }
    } finally {
      await canaryProxy.close();
      await canary.close();
    }
  }, 2 * BUDGET_MS);

  // Names are known before the server exists; the targets themselves need its ids and tokens.
  const names = gatehouseTargets(new Proxy({}, { get: () => 'x' }) as Seed).map((t) => t.name);
  it.concurrent.each(names)('%s', async (name) => {
    const target = targets.find((t) => t.name === name)!;
    const workDir = workDirFor(workRoot, target);
    // Its own proxy, so what it records belongs to this scan alone.
    const proxy = await startRecordingProxy(gatehouse.server.base);
    const args = sqlmapArgs(target, gatehouse.server.base, proxy.url, DBMS, workDir);
    const run = await scan(() => runSqlmap(args, workDir, BUDGET_MS)).finally(() => proxy.close());
    const seen = proxy.take();
    const verdict = readVerdict(run.output);
    const log = `\n--- sqlmap ${args.join(' ')}\n${tail(run.output)}`;

    expect(run.timedOut, `over ${BUDGET_MS} ms${log}`).toBe(false);
    expect(verdict.critical, log).toEqual([]);
    expect(verdict.injectable, log).toEqual([]);
    const failed = seen.filter((r) => r.status >= 500 || r.status === 0).slice(0, 5);
    expect(failed, `5xx answers${log}\n--- server\n${tail(gatehouse.server.output(), 30)}`).toEqual([]);
    expect(verdict.serverErrors, log).toEqual([]);
    const refused = seen.filter((r) => (target.refused ?? [401, 403, 429]).includes(r.status)).slice(0, 5);
    expect(refused, `answers that mean the scan was not testing anything${log}`).toEqual([]);
    for (const point of target.points) {
      expect(verdict.cleared, `sqlmap did not finish testing ${point.sqlmapName}${log}`).toContain(point.sqlmapName);
      const payloads = seen.filter((r) => SQL_WORDS.test(valueAt(r, point) ?? '')).length;
      expect(payloads, `payloads that reached the server in ${point.sqlmapName}`).toBeGreaterThanOrEqual(MIN_PAYLOADS);
    }
  }, 10 * BUDGET_MS); // includes the wait for a free slot
});
