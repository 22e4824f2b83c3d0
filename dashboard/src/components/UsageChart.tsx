import { useMemo, useState } from 'preact/hooks';
import { gatehouse } from '../lib/api.ts';
import { useResource } from '../lib/hooks.ts';
import { OUTCOMES, PERIODS, requestCount, seriesOf, summaryOf, totalsOf, type Granularity } from '../lib/usage-history.ts';
import { ErrorAlert } from './ErrorAlert.tsx';
import { PeriodSwitch } from './PeriodSwitch.tsx';
import { UplotChart } from './UplotChart.tsx';
import { UsageLegend } from './UsageLegend.tsx';
import { UsageTable } from './UsageTable.tsx';
import { Icon } from './Icon.tsx';

interface Props {
  /** One API key's requests; without it, the whole account's. */
  keyId?: string;
  /** Who made the requests, for the empty state: "with this key", "with your account". */
  subject: string;
}

/** Requests over time by outcome (GET /v1/usage/history): period switch, totals, chart, and its numbers as a table. */
export function UsageChart({ keyId, subject }: Props) {
  const [granularity, setGranularity] = useState<Granularity>('hour');
  const history = useResource(() => gatehouse.usage.history(keyId ? { granularity, key_id: keyId } : { granularity }), [granularity, keyId]);
  const shown = history.data;
  const totals = useMemo(() => (shown ? totalsOf(shown.data) : null), [shown]);
  const data = useMemo(() => (shown ? seriesOf(shown.data) : null), [shown]);
  return (
    <div class="usage-chart" aria-busy={history.loading ? 'true' : undefined}>
      <div class="usage-chart-tools">
        <PeriodSwitch value={granularity} onChange={setGranularity} />
        <button type="button" class="button button-secondary button-small" onClick={() => void history.reload()}>
          <Icon name="refresh" />
          Refresh
        </button>
      </div>
      <ErrorAlert error={history.error} />
      {shown && totals && data ? (
        <>
          <UsageLegend totals={totals} />
          {requestCount(totals) === 0 ? (
            <p class="empty usage-chart-empty">
              No requests {subject} in the {PERIODS[shown.granularity].label.toLowerCase()}.
            </p>
          ) : (
            <>
              <UplotChart data={data} series={OUTCOMES} utc={shown.granularity === 'day'} label={summaryOf(shown.granularity, totals)} />
              <UsageTable history={shown} />
            </>
          )}
        </>
      ) : (
        !history.error && <p role="status">Loading…</p>
      )}
    </div>
  );
}
