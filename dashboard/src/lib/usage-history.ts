import type { UsageHistory } from './api.ts';

export type UsageBucket = UsageHistory['data'][number];
export type Granularity = UsageHistory['granularity'];
export type Outcome = 'ok' | 'rate_limited' | 'unauthorized' | 'forbidden';
export type Totals = Record<Outcome, number>;

/** The outcomes a request is counted under, in the order of the legend and the chart's series. */
export const OUTCOMES: readonly { key: Outcome; label: string; color: string }[] = [
  { key: 'ok', label: 'OK', color: '--chart-ok' },
  { key: 'rate_limited', label: 'Rate limited', color: '--chart-rate-limited' },
  { key: 'unauthorized', label: 'Unauthorized', color: '--chart-unauthorized' },
  { key: 'forbidden', label: 'Forbidden', color: '--chart-forbidden' },
];

/** The two periods the server keeps: 24 hours by hour (its default) and 30 days by day. */
export const PERIODS: Record<Granularity, { label: string; bucket: string }> = {
  hour: { label: 'Last 24 hours', bucket: 'hour' },
  day: { label: 'Last 30 days', bucket: 'day' },
};

export function totalsOf(data: readonly UsageBucket[]): Totals {
  const totals: Totals = { ok: 0, rate_limited: 0, unauthorized: 0, forbidden: 0 };
  for (const bucket of data) for (const { key } of OUTCOMES) totals[key] += bucket[key];
  return totals;
}

export const requestCount = (totals: Totals): number => OUTCOMES.reduce((sum, { key }) => sum + totals[key], 0);

/** The columns uPlot draws: bucket starts in Unix seconds, then one series per outcome. */
export function seriesOf(data: readonly UsageBucket[]): [number[], ...number[][]] {
  return [data.map((b) => Date.parse(b.start) / 1000), ...OUTCOMES.map(({ key }) => data.map((b) => b[key]))];
}

/** One sentence for screen readers: the period and each outcome's total. */
export function summaryOf(granularity: Granularity, totals: Totals): string {
  const parts = OUTCOMES.map(({ key, label }) => `${totals[key].toLocaleString()} ${label.toLowerCase()}`);
  return `Requests per ${PERIODS[granularity].bucket}, ${PERIODS[granularity].label.toLowerCase()}: ${parts.join(', ')}.`;
}
