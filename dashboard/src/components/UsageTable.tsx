import type { UsageHistory } from '../lib/api.ts';
import { formatBucket, formatNumber } from '../lib/format.ts';
import { OUTCOMES, PERIODS } from '../lib/usage-history.ts';

/** The chart's numbers for screen readers: a visually hidden table of the buckets with requests. */
export function UsageTable({ history }: { history: UsageHistory }) {
  const { bucket } = PERIODS[history.granularity];
  const rows = history.data.filter((b) => OUTCOMES.some(({ key }) => b[key] > 0));
  // Hidden by a wrapper: a table is never narrower than its content, even at width 1px.
  return (
    <div class="visually-hidden">
      <table>
        <caption>Requests per {bucket} (only the {bucket}s with requests)</caption>
        <thead>
          <tr>
            <th scope="col">{bucket === 'hour' ? 'Hour' : 'Day (UTC)'}</th>
            {OUTCOMES.map(({ key, label }) => (
              <th key={key} scope="col">
                {label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((b) => (
            <tr key={b.start}>
              <th scope="row">{formatBucket(b.start, history.granularity)}</th>
              {OUTCOMES.map(({ key }) => (
                <td key={key}>{formatNumber(b[key])}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
