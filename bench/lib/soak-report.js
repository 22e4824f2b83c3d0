// The soak's verdict and tables: memory trends after warm-up against a stated threshold, errors.
import { linearFit } from './trend.js';

const MiB = 1024 * 1024;
const mib = (bytes) => (bytes / MiB).toFixed(1);
const signed = (n, digits = 1) => `${n >= 0 ? '+' : '−'}${Math.abs(n).toFixed(digits)}`;

/** The metrics whose trend is fitted: a leak shows in the V8 heap, and in resident memory whatever its kind. */
const TRENDS = [
  { key: 'rssAnon', label: 'anonymous RSS (RssAnon, /proc/<pid>/status)' },
  { key: 'rss', label: 'RSS (process_resident_memory_bytes)' },
  { key: 'heapUsed', label: 'V8 heap used, floor of each sample (nodejs_heap_size_used_bytes)' },
  { key: 'oldSpace', label: 'V8 old space used, floor' },
  { key: 'heapTotal', label: 'V8 heap committed (nodejs_heap_size_total_bytes)' },
  { key: 'external', label: 'V8 external: buffers and the like (nodejs_external_memory_bytes)' },
];

/**
 * `flat` when even the top of the slope's 95% interval is under the threshold, `GROWING` when
 * even its bottom is over it, `unclear` between (noise too large for the run's length).
 */
function judge(fit, threshold) {
  if (!Number.isFinite(fit.slope)) return 'unclear';
  if (fit.high <= threshold) return 'flat';
  if (fit.low > threshold) return 'GROWING';
  return 'unclear';
}

/** Everything after warm-up, fitted in MiB per hour. */
export function analyse(samples, { warmupSeconds, rate, maxGrowthMiBPerHour }) {
  const measured = samples.filter((s) => s.t >= warmupSeconds);
  const trends = TRENDS.filter((m) => measured.every((s) => Number.isFinite(s[m.key]))).map((m) => {
    const fit = linearFit(measured.map((s) => s.elapsed / 3600), measured.map((s) => s[m.key] / MiB));
    const values = measured.map((s) => s[m.key]);
    return {
      ...m, fit, verdict: judge(fit, maxGrowthMiBPerHour),
      first: values[0], last: values.at(-1), min: Math.min(...values), max: Math.max(...values),
      bytesPerRequest: (fit.slope * MiB) / 3600 / rate,
    };
  });
  // Judged: anonymous RSS (total RSS where /proc has none) and the heap floor; the rest is shown.
  const rssKey = trends.some((t) => t.key === 'rssAnon') ? 'rssAnon' : 'rss';
  for (const t of trends) t.judged = t.key === rssKey || t.key === 'heapUsed';
  const judged = trends.filter((t) => t.judged);
  const errors = samples.reduce((n, s) => n + s.errors, 0);
  const answers = samples.reduce((n, s) => n + s.answers, 0);
  const pass = errors === 0 && judged.length === 2 && judged.every((t) => t.verdict === 'flat');
  const errorSamples = samples.flatMap((s) => s.errorSamples.map((e) => `t=${s.t}s ${e}`)).slice(0, 10);
  return { measured: measured.length, trends, errors, answers, errorSamples, pass };
}

export function verdictText(analysis, { maxGrowthMiBPerHour, warmupSeconds, duration }) {
  const lines = [];
  lines.push(`Verdict: ${analysis.pass ? 'PASS' : 'FAIL'} — ${analysis.answers.toLocaleString('en-US')} answers, ${analysis.errors} errors; ` +
    `memory trend over ${duration - warmupSeconds} s after a ${warmupSeconds} s warm-up (${analysis.measured} samples), threshold ${maxGrowthMiBPerHour} MiB/hour:`);
  for (const t of analysis.trends) {
    lines.push(`- ${t.label}: ${mib(t.first)} → ${mib(t.last)} MiB (min ${mib(t.min)}, max ${mib(t.max)}); ` +
      `trend ${signed(t.fit.slope)} MiB/hour (95% ${signed(t.fit.low)} to ${signed(t.fit.high)}), ` +
      `≈ ${signed(t.bytesPerRequest, 2)} bytes/request: ${t.verdict}${t.judged ? '' : ' (shown, not judged)'}`);
  }
  if (analysis.errors > 0) {
    lines.push('- errors (any answer other than the expected status, a network error, a timeout, a backlog), the first ones:');
    for (const e of analysis.errorSamples) lines.push(`  - ${e}`);
  }
  return lines.join('\n');
}

/** Rows of `rowSeconds` (the samples inside each summed, or their worst), as a markdown table. */
export function sampleTable(samples, rowSeconds) {
  const rows = [];
  for (const s of samples) {
    const key = Math.ceil(s.t / rowSeconds) * rowSeconds;
    const row = rows.at(-1)?.key === key ? rows.at(-1) : (rows.push({ key, items: [] }), rows.at(-1));
    row.items.push(s);
  }
  const out = ['| t (s) | req/s | errors | p50 ms | p99 ms | max ms | RSS / anon MiB | heap floor / peak / committed MiB | old space MiB | external MiB | event-loop p99 / max ms | server CPU | agents |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|'];
  for (const { key, items } of rows) {
    const last = items.at(-1);
    const sum = (f) => items.reduce((n, s) => n + s[f], 0);
    const worst = (f) => Math.max(...items.map((s) => s[f]));
    const seconds = sum('seconds');
    out.push(`| ${key} | ${(sum('answers') / seconds).toFixed(0)} | ${sum('errors')} | ${worst('p50').toFixed(1)} | ${worst('p99').toFixed(1)} | ${worst('max').toFixed(0)} | ` +
      `${mib(last.rss)} / ${mib(last.rssAnon)} | ${mib(Math.min(...items.map((s) => s.heapUsed)))} / ${mib(worst('heapUsedPeak'))} / ${mib(last.heapTotal)} | ${mib(last.oldSpace)} | ${mib(last.external)} | ${worst('loopP99').toFixed(1)} / ${worst('loopMax').toFixed(1)} | ` +
      `${(sum('cpuSeconds') / seconds * 100).toFixed(0)}% | ${last.agents} |`);
  }
  return out.join('\n');
}
