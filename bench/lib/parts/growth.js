// Part 5 of the issue: what GET /v1/agents?limit=20 costs for one account as the database grows,
// from 1,000 agents in all to 1,000,000 agents across 100,000 accounts, in the same rounds.
import { join } from 'node:path';
import { onCleanup } from '../cleanup.js';
import { AGENTS_PAGE, prepareAccount } from '../gatehouse-account.js';
import { newDeployment, startGatehouse, teardown, withServerStopped } from '../gatehouse.js';
import { expectStatus } from '../http.js';
import { interleavedRounds } from '../load.js';
import { run } from '../processes.js';
import { int, markdown, ms, pct, ratio, spreadText, stats, verdict } from '../report.js';
import { MODE_NAMES } from './throughput.js';

/** The large database holds at most 20% less throughput than the small one. */
export const GROWTH_GOAL = 0.8;
/** The small database: 1,000 agents over 100 accounts, the same 10 per account as the large one. */
const SMALL = { accounts: 100, agents: 1_000 };

/**
 * The bench account (with its AGENTS_PAGE agents, made through the API) plus `accounts - 1`
 * others holding the rest of `agents`, bulk-loaded by seed-accounts.js while the server is
 * stopped: the server migrates the database first, so the schema is its own.
 */
async function seededDeployment(ctx, mode, { accounts, agents }) {
  const name = `${MODE_NAMES[mode]}, ${int(agents)} agents`;
  const root = ctx.servers[0].root;
  const deployment = newDeployment(mode, root, name);
  ctx.releases.push(onCleanup(`Gatehouse ${name}`, () => teardown(deployment)));
  await startGatehouse(deployment);
  const account = await prepareAccount(deployment, { agents: AGENTS_PAGE });
  let seeded;
  await withServerStopped(deployment, async () => {
    const out = await run(process.execPath, ['--import', 'tsx', join(ctx.repoRoot, 'bench', 'seed-accounts.js')], {
      SEED_DATABASE_URL: deployment.env.DATABASE_URL,
      SEED_USERS: String(accounts - 1),
      SEED_AGENTS: String(agents - AGENTS_PAGE),
      SEED_IDS_MODULE: join(root, 'server', 'src', 'core', 'ids.ts'),
    }, join(root, 'server'), 30 * 60_000);
    seeded = JSON.parse(out.split('\n').pop());
  });
  if (seeded.users !== accounts || seeded.agents !== agents) throw new Error(`seed: ${name} holds ${seeded.users} accounts and ${seeded.agents} agents, expected ${accounts} and ${agents}`);
  const page = await expectStatus(deployment.base, 'GET', `/v1/agents?limit=${AGENTS_PAGE}`, 200, { token: account.token });
  if (page.json.data.length !== AGENTS_PAGE || page.json.next_cursor !== null) throw new Error(`setup: ${name}: /v1/agents returned ${page.json.data.length} agents`);
  ctx.log(`bench: ${name} ready: ${int(seeded.users)} accounts, ${int(seeded.agents)} agents, bulk load ${seeded.seconds.toFixed(1)} s`);
  return {
    id: `${mode}:${agents}`, mode: MODE_NAMES[mode], gatehouseMode: mode, agents, accounts,
    label: `GET /v1/agents?limit=${AGENTS_PAGE}, among ${int(agents)} agents / ${int(accounts)} accounts`,
    url: `${deployment.base}/v1/agents?limit=${AGENTS_PAGE}`, headers: { authorization: `Bearer ${account.token}` },
    process: deployment.server, redis: mode === 'redis',
  };
}

export async function runGrowth(ctx) {
  ctx.releases = [];
  const pairs = [];
  for (const mode of ctx.growthModes) {
    const small = await seededDeployment(ctx, mode, SMALL);
    const large = await seededDeployment(ctx, mode, { accounts: ctx.growthAccounts, agents: ctx.growthAgents });
    pairs.push({ mode, small, large });
  }
  const targets = pairs.flatMap((p) => [p.small, p.large]);
  const results = await interleavedRounds(targets, { ...ctx.schedule, connections: ctx.connections, redisProbe: ctx.redisProbe, log: ctx.log });

  const rows = targets.map((t) => {
    const rs = results[t.id];
    const rps = stats(rs, 'rps');
    const cpu = rs.every((r) => typeof r.cpuUs === 'number') ? stats(rs, 'cpuUs').median.toFixed(0) : 'n/a';
    return [t.mode, t.label, int(rps.median), spreadText(rps), ms(stats(rs, 'p50').median), ms(stats(rs, 'p99').median), cpu];
  });
  const goals = [];
  const ratios = pairs.map(({ small, large }) => {
    const r = ratio(results[large.id], results[small.id]);
    const v = verdict(r, GROWTH_GOAL);
    const what = `${small.mode} GET /v1/agents throughput, ${int(large.agents)} agents ÷ ${int(small.agents)} agents`;
    goals.push({ what, measured: pct(r.value), goal: `≥ ${pct(GROWTH_GOAL)}`, rounds: `${pct(r.min)}–${pct(r.max)}`, verdict: v });
    return [small.mode, `${int(large.agents)} ÷ ${int(small.agents)} agents`, pct(r.value), `${pct(r.min)}–${pct(r.max)}`, `≥ ${pct(GROWTH_GOAL)}: ${v.text}`];
  });
  return {
    sections: [{
      title: `Cost growth: ${ctx.connections} connections, the bench account's ${AGENTS_PAGE} agents`,
      text: `${markdown(['mode', 'target', 'req/s (median)', 'rounds min–max (spread)', 'p50 ms', 'p99 ms', 'server CPU µs/req'], rows)}\n\n` +
        markdown(['mode', 'throughput', 'ratio (medians)', 'per-round', 'goal'], ratios),
    }],
    goals,
    json: { targets: targets.map(({ process: _p, headers: _h, ...t }) => t), results },
    release: async () => {
      for (const release of ctx.releases) await release();
    },
  };
}
