// Part 4 of the issue: POST /v1/auth/login against raw argon2 verifies at the same parameters,
// and the p99 of an authenticated GET at a fixed rate, alone and while logins run.
import { argon2Parameters, rawVerifyTarget } from '../argon2-raw.js';
import { onCleanup } from '../cleanup.js';
import { prepareAccount, registerLoginUsers, storedPasswordHash } from '../gatehouse-account.js';
import { newDeployment, startGatehouse, teardown } from '../gatehouse.js';
import { interleavedRounds } from '../load.js';
import { int, markdown, ms, pct, ratio, spreadText, stats, times, verdict } from '../report.js';
import { MODE_NAMES } from './throughput.js';

export const LOGIN_P50_GOAL = 1.5;
export const STORM_P99_GOAL = 3;

function loginTarget(deployment, users, connections, extra) {
  const bodies = users.map((u) => JSON.stringify({ username: u.email, password: u.password }));
  let next = 0;
  return {
    url: `${deployment.base}/v1/auth/login`, method: 'POST', headers: { 'content-type': 'application/json' }, body: bodies[0], connections,
    // One account per connection, so no two requests in flight share an account.
    setupClient: (client) => client.setBody(bodies[next++ % bodies.length]),
    process: deployment.server, redis: deployment.mode === 'redis', ...extra,
  };
}

async function modeTargets(ctx, mode) {
  const name = MODE_NAMES[mode];
  const deployment = newDeployment(mode, ctx.servers[0].root, `${name} login`);
  ctx.releases.push(onCleanup(`Gatehouse ${name} (login)`, () => teardown(deployment)));
  await startGatehouse(deployment);
  const account = await prepareAccount(deployment, { agents: 0 });
  const users = await registerLoginUsers(deployment, ctx.loginConnections);
  ctx.log(`bench: ${name} ready for logins (${users.length} accounts)`);
  const n = ctx.loginConnections;
  const common = { mode: name, gatehouseMode: mode };
  const get = {
    url: `${deployment.base}/v1/users/me`, headers: { authorization: `Bearer ${account.token}` }, connections: ctx.stormConnections,
    overallRate: ctx.stormRate, process: deployment.server, redis: mode === 'redis',
  };
  const storm = loginTarget(deployment, users, n, { id: `${mode}:storm-background`, ...common, label: `POST /v1/auth/login, ${n} connections (background)` });
  return {
    deployment,
    users,
    targets: [
      loginTarget(deployment, users, 1, { id: `${mode}:login-1`, ...common, label: 'POST /v1/auth/login, 1 connection' }),
      loginTarget(deployment, users, n, { id: `${mode}:login-n`, ...common, label: `POST /v1/auth/login, ${n} connections` }),
      { ...get, id: `${mode}:get-alone`, ...common, label: `GET /v1/users/me at ${ctx.stormRate} req/s, alone` },
      { ...get, id: `${mode}:get-storm`, ...common, label: `GET /v1/users/me at ${ctx.stormRate} req/s, during logins`, background: storm },
    ],
  };
}

export async function runLogin(ctx) {
  ctx.releases = [];
  const perMode = [];
  for (const mode of ctx.modes) perMode.push({ mode, ...(await modeTargets(ctx, mode)) });
  // The parameters come from the hash the server stored, so they are the server's, whatever they are.
  const first = perMode[0];
  const hash = await storedPasswordHash(first.deployment, first.users[0].id);
  for (const { deployment, users } of perMode.slice(1)) {
    const other = await storedPasswordHash(deployment, users[0].id);
    if (argon2Parameters(other) !== argon2Parameters(hash)) throw new Error(`argon2 parameters differ between modes: ${argon2Parameters(hash)} vs ${argon2Parameters(other)}`);
  }
  const n = ctx.loginConnections;
  const raw1 = rawVerifyTarget({ root: ctx.servers[0].root, hash, password: first.users[0].password, parallel: 1, id: 'argon2-1', label: 'raw argon2 verify, one at a time' });
  const rawN = rawVerifyTarget({ root: ctx.servers[0].root, hash, password: first.users[0].password, parallel: n, id: 'argon2-n', label: `raw argon2 verify, ${n} at a time` });
  const targets = [raw1, rawN, ...perMode.flatMap((m) => m.targets)];
  const results = await interleavedRounds(targets, { ...ctx.schedule, connections: n, redisProbe: ctx.redisProbe, log: ctx.log });

  const rows = targets.map((t) => {
    const rs = results[t.id];
    const cpu = rs.every((r) => typeof r.cpuUs === 'number') ? stats(rs, 'cpuUs').median / 1000 : null;
    const rps = stats(rs, 'rps');
    return [t.mode, t.label, int(rps.median), spreadText(rps), ms(stats(rs, 'p50').median), ms(stats(rs, 'p99').median), cpu === null ? 'n/a' : cpu.toFixed(1)];
  });
  const goals = [];
  const ratios = [];
  const add = (mode, what, r, goal, format = times) => {
    const v = goal ? verdict(r, goal, 'at most') : null;
    ratios.push([mode, what, format(r.value), `${format(r.min)}–${format(r.max)}`, v ? `≤ ${goal}×: ${v.text}` : '']);
    if (v) goals.push({ what: `${mode} ${what}`, measured: times(r.value), goal: `≤ ${goal}×`, rounds: `${times(r.min)}–${times(r.max)}`, verdict: v });
  };
  for (const { mode } of perMode) {
    const name = MODE_NAMES[mode];
    add(name, 'login p50 (1 connection) ÷ raw verify p50 (one at a time)', ratio(results[`${mode}:login-1`], results['argon2-1'], 'p50'), LOGIN_P50_GOAL);
    // CPU per operation moves far less with the machine's other work than wall-clock p50 does.
    const cpuKnown = [...results[`${mode}:login-1`], ...results['argon2-1']].every((r) => typeof r.cpuUs === 'number');
    if (cpuKnown) add(name, 'server CPU per login ÷ CPU per raw verify (1 at a time each)', ratio(results[`${mode}:login-1`], results['argon2-1'], 'cpuUs'));
    add(name, `logins/s ÷ raw verifies/s (${n} in flight each)`, ratio(results[`${mode}:login-n`], results['argon2-n'], 'rps'), null, pct);
    add(name, `GET /v1/users/me p99 during ${n}-connection logins ÷ alone`, ratio(results[`${mode}:get-storm`], results[`${mode}:get-alone`], 'p99'), STORM_P99_GOAL);
    // Connections wait for their answers, so a slow server can hold the GETs below the rate asked.
    const held = stats(results[`${mode}:get-storm`], 'rps').median / ctx.stormRate;
    if (held < 0.9) goals.at(-1).note = `the GETs got only ${pct(held)} of ${ctx.stormRate} req/s during logins: raise --storm-connections`;
  }
  const strip = (t) => ({ id: t.id, mode: t.mode, label: t.label });
  return {
    sections: [{
      title: `Login: ${argon2Parameters(hash)} (read from the hash the server stored); fixed-rate GETs on ${ctx.stormConnections} connections`,
      text: `${markdown(['mode', 'what', 'req/s (median)', 'rounds min–max (spread)', 'p50 ms', 'p99 ms', 'CPU ms/req'], rows)}\n\n` +
        markdown(['mode', 'ratio', 'value (medians)', 'per-round', 'goal'], ratios),
    }],
    goals,
    json: { argon2: argon2Parameters(hash), targets: targets.map(strip), results },
    release: async () => {
      for (const release of ctx.releases) await release();
    },
  };
}
