// Turns the rounds into the numbers people read: medians, spread, ratio to bare Fastify, goals.

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const int = (n) => Math.round(n).toLocaleString('en-US');
const pct = (n) => `${(n * 100).toFixed(0)}%`;
const ms = (n) => (n < 10 ? n.toFixed(1) : n.toFixed(0));
const known = (values) => values.every((v) => typeof v === 'number');

/**
 * `rounds[targetId]` holds one entry per round: { rps, p50, p99, cpuUs, redisCpuUs }. The ratio
 * is the target's median over bare Fastify's median; the per-round ratios (each against the
 * hello-world measured in the same round, so under similar machine noise) show how firmly a goal
 * is met or missed. `cpuRatio` is bare Fastify's server CPU per request over the target's: what
 * the throughput ratio would be if the server process alone were the bottleneck.
 */
export function summarize(targets, rounds, baselineId) {
  const base = rounds[baselineId];
  const baseMedian = median(base.map((r) => r.rps));
  const baseCpu = known(base.map((r) => r.cpuUs)) ? median(base.map((r) => r.cpuUs)) : null;
  return targets.map((t) => {
    const rs = rounds[t.id];
    const rps = rs.map((r) => r.rps);
    const med = median(rps);
    const perRound = rs.map((r, i) => r.rps / base[i].rps);
    const ratio = med / baseMedian;
    let verdict = '';
    if (t.goal) {
      verdict = ratio >= t.goal ? 'met' : 'MISSED';
      if (Math.min(...perRound) < t.goal && Math.max(...perRound) >= t.goal) verdict += ' (borderline)';
    }
    const cpuUs = known(rs.map((r) => r.cpuUs)) ? median(rs.map((r) => r.cpuUs)) : null;
    const redisCpuUs = known(rs.map((r) => r.redisCpuUs)) ? median(rs.map((r) => r.redisCpuUs)) : null;
    return {
      ...t,
      rpsRounds: rps,
      rps: med,
      min: Math.min(...rps),
      max: Math.max(...rps),
      spread: (Math.max(...rps) - Math.min(...rps)) / med,
      ratio,
      ratioMin: Math.min(...perRound),
      ratioMax: Math.max(...perRound),
      p50: median(rs.map((r) => r.p50)),
      p99: median(rs.map((r) => r.p99)),
      cpuUs,
      redisCpuUs,
      cpuRatio: baseCpu && cpuUs ? baseCpu / cpuUs : null,
      verdict,
    };
  });
}

export function markdownTable(rows) {
  const head = ['mode', 'target', 'req/s (median)', 'rounds min–max (spread)', 'vs bare Fastify', 'per-round ratio', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'CPU ratio', 'goal'];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((h, i) => (i < 2 ? '---' : '---:')).join('|')}|`];
  for (const r of rows) {
    const goal = r.goal ? `≥ ${pct(r.goal)}: ${r.verdict}` : '';
    const cpu = r.cpuUs === null ? 'n/a' : `${r.cpuUs.toFixed(0)}${r.redisCpuUs === null ? '' : ` (+${r.redisCpuUs.toFixed(0)} Redis)`}`;
    lines.push(`| ${[
      r.mode, r.label, int(r.rps), `${int(r.min)}–${int(r.max)} (${pct(r.spread)})`, pct(r.ratio),
      `${pct(r.ratioMin)}–${pct(r.ratioMax)}`, ms(r.p50), ms(r.p99), cpu, r.cpuRatio === null ? 'n/a' : pct(r.cpuRatio), goal,
    ].join(' | ')} |`);
  }
  return lines.join('\n');
}

/** One line per goal, plainly: which authenticated routes reach their share of bare Fastify. */
export function goalSummary(rows) {
  const goals = rows.filter((r) => r.goal);
  const missed = goals.filter((r) => r.ratio < r.goal);
  const lines = goals.map((r) => `  ${r.verdict.startsWith('met') ? 'met   ' : 'MISSED'} ${r.mode} ${r.label}: ${pct(r.ratio)} of bare Fastify ` +
    `(goal ${pct(r.goal)}; rounds ${pct(r.ratioMin)}–${pct(r.ratioMax)}${r.cpuRatio ? `; by server CPU per request ${pct(r.cpuRatio)}` : ''})`);
  return { text: lines.join('\n'), missed: missed.length, total: goals.length };
}
