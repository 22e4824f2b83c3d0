// Turns the rounds into the numbers people read: medians, spread, ratios, tables, goals.

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export const int = (n) => Math.round(n).toLocaleString('en-US');
export const pct = (n) => `${(n * 100).toFixed(0)}%`;
export const ms = (n) => (!Number.isFinite(n) ? '∞' : n < 10 ? n.toFixed(1) : n.toFixed(0));
export const times = (n) => (!Number.isFinite(n) ? '∞' : `${n < 10 ? n.toFixed(2) : n.toFixed(1)}×`);
const known = (values) => values.every((v) => typeof v === 'number');

/** Median, min–max and spread ((max − min) / median) of one field over the rounds. */
export function stats(rounds, field) {
  const values = rounds.map((r) => r[field]);
  const med = median(values);
  return { median: med, min: Math.min(...values), max: Math.max(...values), spread: (Math.max(...values) - Math.min(...values)) / med };
}

export const spreadText = (s, format = int) => `${format(s.min)}–${format(s.max)} (${pct(s.spread)})`;

/**
 * `a` over `b` for one field: the ratio of the medians, and the range of the ratios within each
 * round (both measured in the same round, so under similar machine noise).
 */
export function ratio(roundsA, roundsB, field = 'rps') {
  const perRound = roundsA.map((r, i) => r[field] / roundsB[i][field]);
  return { value: stats(roundsA, field).median / stats(roundsB, field).median, min: Math.min(...perRound), max: Math.max(...perRound) };
}

/**
 * A goal: `at least` (ratio ≥ goal) or `at most` (ratio ≤ goal). `(borderline)` when some rounds
 * were on the other side, so one more run may well flip it.
 */
export function verdict(r, goal, direction = 'at least') {
  const ok = (v) => (direction === 'at least' ? v >= goal : v <= goal);
  const met = ok(r.value);
  const borderline = ok(r.min) !== ok(r.max);
  return { met, text: `${met ? 'met' : 'MISSED'}${borderline ? ' (borderline)' : ''}` };
}

/** `left`: how many columns from the left are left-aligned, or a list of the indices that are. */
export function markdown(head, rows, left = 2) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  const isLeft = (i) => (Array.isArray(left) ? left.includes(i) : i < left);
  return [line(head), `|${head.map((_, i) => (isLeft(i) ? '---' : '---:')).join('|')}|`, ...rows.map(line)].join('\n');
}

/**
 * `rounds[targetId]` holds one entry per round: { rps, p50, p99, cpuUs, redisCpuUs }. The ratio
 * is the target's median over bare Fastify's median; `cpuRatio` is bare Fastify's server CPU per
 * request over the target's: what the throughput ratio would be if the server process alone
 * were the bottleneck.
 */
export function summarize(targets, rounds, baselineId) {
  const base = rounds[baselineId];
  const baseCpu = known(base.map((r) => r.cpuUs)) ? median(base.map((r) => r.cpuUs)) : null;
  return targets.map((t) => {
    const rs = rounds[t.id];
    const vsBase = ratio(rs, base);
    const cpuUs = known(rs.map((r) => r.cpuUs)) ? median(rs.map((r) => r.cpuUs)) : null;
    const redisCpuUs = known(rs.map((r) => r.redisCpuUs)) ? median(rs.map((r) => r.redisCpuUs)) : null;
    return {
      ...t,
      rps: stats(rs, 'rps'),
      vsBase,
      p50: median(rs.map((r) => r.p50)),
      p99: median(rs.map((r) => r.p99)),
      cpuUs,
      redisCpuUs,
      cpuRatio: baseCpu && cpuUs ? baseCpu / cpuUs : null,
      verdict: t.goal ? verdict(vsBase, t.goal) : null,
    };
  });
}

export function throughputTable(rows) {
  const head = ['mode', 'target', 'req/s (median)', 'rounds min–max (spread)', 'vs bare Fastify', 'per-round ratio', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'CPU ratio'];
  return markdown(head, rows.map((r) => {
    const cpu = r.cpuUs === null ? 'n/a' : `${r.cpuUs.toFixed(0)}${r.redisCpuUs === null ? '' : ` (+${r.redisCpuUs.toFixed(0)} Redis)`}`;
    return [
      r.mode, r.label, int(r.rps.median), spreadText(r.rps), pct(r.vsBase.value), `${pct(r.vsBase.min)}–${pct(r.vsBase.max)}`,
      ms(r.p50), ms(r.p99), cpu, r.cpuRatio === null ? 'n/a' : pct(r.cpuRatio),
    ];
  }));
}

/**
 * The issue's goals as one table: per goal line (`issueGoals`, lib/goals.js) the entry a part
 * measured with the same id, its value (the median over the rounds, or of the ratios' medians),
 * the range within the rounds, the goal, met or not, and for a goal not met what to run for the
 * profile that explains it. A goal no part measured says which options measure it.
 */
export function goalTable(issueGoals, measured) {
  const byId = new Map(measured.filter((g) => g.id).map((g) => [g.id, g]));
  let met = 0;
  let missed = 0;
  const rows = issueGoals.map((g) => {
    const m = byId.get(g.id);
    if (!m) return [g.what, 'not measured', '', g.goal, '–', `measured by \`npm run bench -- ${g.needs}\``];
    if (m.verdict.judged === false) return [m.what ?? g.what, m.measured, m.rounds, m.goal ?? g.goal, 'not judged', m.profile ?? ''];
    if (m.verdict.met) met++;
    else missed++;
    const borderline = m.verdict.text.includes('borderline') ? ' (borderline)' : '';
    return [m.what ?? g.what, m.measured, m.rounds, m.goal ?? g.goal, `${m.verdict.met ? 'met' : 'NOT MET'}${borderline}`, m.verdict.met ? '' : (m.profile ?? '')];
  });
  const text = markdown(['goal line', 'measured (median)', 'per-round range', 'goal', 'verdict', 'not met: the profile to run'], rows, [0, 4, 5]);
  const unjudged = measured.filter((g) => byId.has(g.id) && g.verdict.judged === false && issueGoals.some((x) => x.id === g.id)).length;
  return { text, met, missed, unmeasured: issueGoals.length - met - missed - unjudged, unjudged, total: issueGoals.length };
}

/** One line per goal: `met`/`MISSED`, what, the measured value, the goal, the per-round range. */
export function goalLines(goals) {
  const met = goals.filter((g) => g.verdict.met).length;
  const lines = goals.map((g) => `  ${g.verdict.met ? 'MET   ' : 'MISSED'} ${g.what}: ${g.measured} (goal ${g.goal}; rounds ${g.rounds})` +
    `${g.verdict.text.includes('borderline') ? ' (borderline)' : ''}${g.note ? `; ${g.note}` : ''}`);
  return { text: lines.join('\n'), met, total: goals.length };
}
