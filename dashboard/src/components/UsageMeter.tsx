import { formatDuration, formatNumber } from '../lib/format.ts';

interface Props {
  label: string;
  used: number;
  limit: number;
  resetSeconds: number;
  resetLabel: string;
}

/** One rate-limit window: requests used against the limit, as text and as a <meter>. */
export function UsageMeter({ label, used, limit, resetSeconds, resetLabel }: Props) {
  const id = `usage-${label.toLowerCase().replace(/\W+/g, '-')}`;
  return (
    <div class="usage">
      <div class="usage-head">
        <h3 id={id}>{label}</h3>
        <p class="usage-numbers">
          <strong>{formatNumber(used)}</strong> of {formatNumber(limit)} requests
        </p>
      </div>
      <meter aria-labelledby={id} min={0} max={limit} low={limit * 0.75} high={limit * 0.9} optimum={0} value={Math.min(used, limit)}>
        {formatNumber(used)} of {formatNumber(limit)}
      </meter>
      <p class="hint">
        {resetLabel} {formatDuration(resetSeconds)}.
      </p>
    </div>
  );
}
