import { formatNumber } from '../lib/format.ts';
import { OUTCOMES, type Totals } from '../lib/usage-history.ts';

/** The chart's legend: each outcome's colour, name and total over the period shown. */
export function UsageLegend({ totals }: { totals: Totals }) {
  return (
    <ul class="usage-legend" aria-label="Requests by outcome">
      {OUTCOMES.map(({ key, label }) => (
        <li key={key} data-outcome={key}>
          <span class={`swatch swatch-${key.replace('_', '-')}`} aria-hidden="true" />
          <span class="usage-legend-label">{label}</span> <strong class="usage-legend-total">{formatNumber(totals[key])}</strong>
        </li>
      ))}
    </ul>
  );
}
