// Part 1–3 of the issue: bare Fastify (the ceiling), Gatehouse's routes in each mode, and the
// peer (Better Auth), all loaded in the same interleaved rounds.
import { mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { prepareBetterAuthUser, startBetterAuth, stopBetterAuth } from '../better-auth.js';
import { onCleanup } from '../cleanup.js';
import { whilePinned } from '../cpu-pinning.js';
import { AGENTS_PAGE, prepareAccount } from '../gatehouse-account.js';
import { newDeployment, startGatehouse, teardown } from '../gatehouse.js';
import { interleavedRounds } from '../load.js';
import { freePort, startProcess, stopProcess, waitUntilServing } from '../processes.js';
import { markdown, pct, ratio, summarize, throughputTable, times, verdict } from '../report.js';

export const MODE_NAMES = { embedded: 'embedded', redis: 'PG + Redis' };
/**
 * The issue's goal: Better Auth spends at least this multiple of Gatehouse's server CPU per
 * request, session against session, API key against API key (embedded: both on SQLite). The
 * account reads' goal against the hello-world is the routes part's (lib/parts/routes.js).
 */
export const PEER_CPU_GOAL = 10;

export const GATEHOUSE_TARGETS = {
  healthz: { label: 'GET /healthz (no auth)', path: '/healthz', credential: null },
  'me-token': { label: 'GET /v1/users/me, access token', path: '/v1/users/me', credential: 'token' },
  'usage-token': { label: 'GET /v1/usage, access token', path: '/v1/usage', credential: 'token' },
  // /v1/users/me refuses API keys by design (403 session_required): the key path is measured here.
  'usage-key': { label: 'GET /v1/usage, API key', path: '/v1/usage', credential: 'key' },
  'agents-token': { label: `GET /v1/agents (${AGENTS_PAGE}), access token`, path: `/v1/agents?limit=${AGENTS_PAGE}`, credential: 'token' },
  'agents-key': { label: `GET /v1/agents (${AGENTS_PAGE}), API key`, path: `/v1/agents?limit=${AGENTS_PAGE}`, credential: 'key' },
};
/** Not a Gatehouse route: the floor any server pays for /v1/users/me's answer (bench/shape-server.js). */
const SHAPE_LABEL = 'bare Fastify, /v1/users/me-shaped answer (floor)';
export const FLOOR_TARGETS = {
  shape: { label: SHAPE_LABEL },
  'hello-defaults': { label: 'bare Fastify hello-world, Node defaults' },
};
export const PEER_TARGETS = {
  'ba-session': { label: 'GET /api/auth/get-session, session cookie', path: '/api/auth/get-session' },
  'ba-key': { label: 'GET /bench/api-key, verifyApiKey', path: '/bench/api-key' },
};
/** Gatehouse target ÷ Better Auth target, and whether the issue sets a goal on it. */
export const PEER_PAIRS = [
  { gatehouse: 'me-token', peer: 'ba-session', goal: true, gatehouseWhat: 'GET /v1/users/me with an access token', peerWhat: 'get-session (session cookie)' },
  { gatehouse: 'usage-key', peer: 'ba-key', goal: true, gatehouseWhat: 'GET /v1/usage with an API key', peerWhat: 'verifyApiKey (API key)' },
  { gatehouse: 'agents-token', peer: 'ba-session' },
  { gatehouse: 'agents-key', peer: 'ba-key' },
];

async function startHello(ctx) {
  const port = await freePort();
  let args = ['bench/hello-server.js'];
  if (ctx.profileRoot) {
    await mkdir(join(ctx.profileRoot, 'hello'), { recursive: true });
    args = ['--cpu-prof', `--cpu-prof-dir=${join(ctx.profileRoot, 'hello')}`, ...args];
  }
  const hello = startProcess('bare fastify', args, { PORT: String(port), HOST: '127.0.0.1' }, ctx.repoRoot);
  ctx.stopHello = onCleanup('bare Fastify', () => stopProcess(hello));
  await waitUntilServing(hello, `http://127.0.0.1:${port}/`);
  return { id: 'hello', mode: '—', label: 'bare Fastify hello-world', url: `http://127.0.0.1:${port}/`, process: hello };
}

/**
 * The same hello-world in another set-up, shown beside the ceiling and never a goal's base:
 * `hello-defaults` under Node's default flags (what Gatehouse reaches against a bare Fastify nobody
 * tuned).
 */
const HELLO_VARIANTS = {
  'hello-defaults': { label: 'bare Fastify hello-world, Node defaults (no flags)', env: {}, options: { nodeFlags: [] } },
};

async function startHelloVariant(ctx, id) {
  const { label, env, options } = HELLO_VARIANTS[id];
  const port = await freePort();
  const hello = startProcess(label, ['bench/hello-server.js'], { PORT: String(port), HOST: '127.0.0.1', ...env }, ctx.repoRoot, options);
  ctx.releases.push(onCleanup(label, () => stopProcess(hello)));
  await waitUntilServing(hello, `http://127.0.0.1:${port}/`);
  return { id, key: id, mode: '—', label, url: `http://127.0.0.1:${port}/`, process: hello };
}

/** Optional target `shape`: bare Fastify answering with /v1/users/me's headers and body size. */
async function startShape(ctx, sampleCredential) {
  const port = await freePort();
  const shape = startProcess('fastify, Gatehouse-shaped answer', ['bench/shape-server.js'], { PORT: String(port), HOST: '127.0.0.1' }, ctx.repoRoot);
  ctx.releases.push(onCleanup('shape server', () => stopProcess(shape)));
  await waitUntilServing(shape, `http://127.0.0.1:${port}/`);
  return {
    id: 'shape', key: 'shape', mode: '—', label: SHAPE_LABEL, url: `http://127.0.0.1:${port}/`, process: shape,
    headers: sampleCredential ? { authorization: `Bearer ${sampleCredential}` } : {},
  };
}
async function gatehouseTargets(ctx, { root, tag }, mode) {
  const name = `${MODE_NAMES[mode]}${tag}`;
  const profileDir = ctx.profileRoot ? join(ctx.profileRoot, `${mode}${tag ? `-${basename(root)}` : ''}`) : undefined;
  if (profileDir) await mkdir(profileDir, { recursive: true });
  const started = Date.now();
  const deployment = newDeployment(mode, root, name);
  ctx.releases.push(onCleanup(`Gatehouse ${name}`, () => teardown(deployment)));
  await startGatehouse(deployment, { profileDir });
  const account = await prepareAccount(deployment);
  ctx.log(`bench: ${name} ready in ${((Date.now() - started) / 1000).toFixed(1)} s (account ${account.email}, ${account.userId}, enterprise, ${AGENTS_PAGE} agents)`);
  ctx.profiled.push({ key: profileDir ? basename(profileDir) : mode, name, process: deployment.server });
  return ctx.targetIds.filter((id) => GATEHOUSE_TARGETS[id]).map((id) => {
    const t = GATEHOUSE_TARGETS[id];
    const secret = t.credential ? account[t.credential] : null;
    return {
      id: `${mode}${tag}:${id}`, key: id, gatehouseMode: mode, tag, mode: name, label: t.label, url: deployment.base + t.path,
      headers: secret ? { authorization: `Bearer ${secret}` } : {},
      process: deployment.server, redis: mode === 'redis',
    };
  });
}

async function peerTargets(ctx) {
  const ids = ctx.targetIds.filter((id) => PEER_TARGETS[id]);
  if (!ids.length) return [];
  const peer = {};
  ctx.releases.push(onCleanup('Better Auth', () => stopBetterAuth(peer)));
  await startBetterAuth(peer, ctx.repoRoot);
  const user = await prepareBetterAuthUser(peer);
  ctx.log(`bench: Better Auth ready (user ${user.email}, ${user.userId}, API key)`);
  return ids.map((id) => ({
    id, key: id, mode: 'Better Auth', label: PEER_TARGETS[id].label, url: peer.base + PEER_TARGETS[id].path, process: peer.server,
    headers: id === 'ba-session' ? { cookie: user.cookie } : { 'x-api-key': user.key },
    // get-session answers 200 with `null` when it finds no session: count that as a failure.
    verifyBody: id === 'ba-session' ? (body) => body.includes(user.userId) : undefined,
  }));
}

function peerSection(rows, results) {
  const peers = Object.fromEntries(rows.filter((r) => PEER_TARGETS[r.id]).map((r) => [r.id, r]));
  const table = [];
  const goals = [];
  for (const g of rows.filter((r) => r.gatehouseMode)) {
    const pair = PEER_PAIRS.find((p) => p.gatehouse === g.key && peers[p.peer]);
    if (!pair) continue;
    const p = peers[pair.peer];
    const r = ratio(results[g.id], results[p.id]);
    const cpuKnown = [...results[g.id], ...results[p.id]].every((x) => typeof x.cpuUs === 'number');
    const cpu = cpuKnown ? ratio(results[p.id], results[g.id], 'cpuUs') : null;
    const withGoal = pair.goal && g.gatehouseMode === 'embedded' && !g.tag && cpu; // Better Auth runs on SQLite: compare like with like
    const v = withGoal ? verdict(cpu, PEER_CPU_GOAL) : null;
    table.push([g.mode, g.label, p.label, times(r.value), `${times(r.min)}–${times(r.max)}`, cpu ? `${times(cpu.value)} (${times(cpu.min)}–${times(cpu.max)})` : 'n/a', v ? `≥ ${PEER_CPU_GOAL}×: ${v.text}` : '']);
    if (v) {
      goals.push({
        id: `peer:${g.key}`, what: `Better Auth ${pair.peerWhat}: its CPU per request ÷ Gatehouse's (embedded, ${pair.gatehouseWhat})`, measured: times(cpu.value), goal: `≥ ${PEER_CPU_GOAL}×`,
        rounds: `${times(cpu.min)}–${times(cpu.max)}`, verdict: v,
        profile: `npm run bench -- --parts throughput --profile --modes embedded --targets ${g.key},${p.key} --rounds 1 --duration 15`,
      });
    }
  }
  const text = table.length
    ? markdown(['mode', 'Gatehouse target', '÷ Better Auth target', 'throughput ratio (medians)', 'per-round ratio', 'CPU per request, Better Auth ÷ Gatehouse (per-round)', 'goal'], table)
    : '';
  return { text, goals };
}

/** Starts every server of one sitting: the ceiling, the floor, Gatehouse per mode, the peer. */
async function startTargets(ctx) {
  ctx.releases = [];
  ctx.profiled = [];
  const targets = [await startHello(ctx)];
  for (const id of Object.keys(HELLO_VARIANTS)) if (ctx.targetIds.includes(id)) targets.push(await startHelloVariant(ctx, id));
  for (const server of ctx.servers) for (const mode of ctx.modes) targets.push(...(await gatehouseTargets(ctx, server, mode)));
  // The floor is loaded with a real access token's Authorization header, as /v1/users/me is.
  if (ctx.targetIds.includes('shape')) targets.splice(1, 0, await startShape(ctx, targets.find((t) => t.key === 'me-token')?.headers.authorization?.slice(7)));
  targets.push(...(await peerTargets(ctx)));
  return targets;
}

const releaseSitting = async (ctx) => {
  for (const release of ctx.releases) await release();
  await ctx.stopHello();
};

/**
 * `ctx.processes` sittings, each with freshly started servers and its own interleaved rounds; the
 * rounds of all sittings are pooled per target. One server process can stay slower than the next
 * for its whole life (PERFORMANCE.md, "Process to process"), so a ratio taken from one process
 * per target says as much about which processes were lucky as about the code; pooled over
 * several, one unlucky process no longer decides it. Per-round ratios still compare targets
 * measured in the same round of the same sitting.
 */
export async function runThroughput(ctx) {
  const results = {};
  let targets;
  let window; // the last sitting's measuring window (µs), which a CPU profile is read against
  for (let sitting = 1; sitting <= ctx.processes; sitting++) {
    if (ctx.processes > 1) ctx.log(`bench: throughput sitting ${sitting}/${ctx.processes}: starting every server afresh`);
    targets = await startTargets(ctx);
    const start = Number(process.hrtime.bigint() / 1000n);
    const sittingResults = await whilePinned(ctx.pinning, targets.map((t) => t.process.pid), () =>
      interleavedRounds(targets, { ...ctx.schedule, connections: ctx.connections, redisProbe: ctx.redisProbe, served: ctx.served, log: ctx.log }));
    window = [start, Number(process.hrtime.bigint() / 1000n)];
    for (const [id, rounds] of Object.entries(sittingResults)) (results[id] ??= []).push(...rounds);
    if (sitting < ctx.processes) await releaseSitting(ctx); // the last sitting's servers are kept for the profile
  }

  const rows = summarize(targets, results, 'hello');
  const peer = peerSection(rows, results);
  const strip = rows.map(({ process: _p, headers: _h, verifyBody: _v, ...r }) => r);
  const sittings = ctx.processes > 1 ? `, ${ctx.processes} sittings of fresh server processes pooled` : '';
  return {
    sections: [
      { title: `Throughput: ${ctx.connections} connections, vs bare Fastify${sittings}`, text: throughputTable(rows) },
      ...(peer.text ? [{ title: 'Gatehouse ÷ Better Auth (same run, same rounds)', text: peer.text }] : []),
    ],
    goals: peer.goals,
    // Each target's rounds in sitting order: rounds [k·n, (k+1)·n) belong to sitting k + 1.
    json: { sittings: ctx.processes, roundsPerSitting: ctx.schedule.rounds, results, summary: strip },
    profile: { window, hello: targets[0].process, profiled: ctx.profiled },
    release: () => releaseSitting(ctx),
  };
}
