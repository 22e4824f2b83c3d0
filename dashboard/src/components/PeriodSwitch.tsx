import { PERIODS, type Granularity } from '../lib/usage-history.ts';

/** Two toggle buttons: the last 24 hours by hour, or the last 30 days by day. */
export function PeriodSwitch({ value, onChange }: { value: Granularity; onChange: (value: Granularity) => void }) {
  return (
    <div class="segmented" role="group" aria-label="Period">
      {(Object.keys(PERIODS) as Granularity[]).map((g) => (
        <button key={g} type="button" class="button button-small" aria-pressed={value === g ? 'true' : 'false'} onClick={() => onChange(g)}>
          {PERIODS[g].label}
        </button>
      ))}
    </div>
  );
}
