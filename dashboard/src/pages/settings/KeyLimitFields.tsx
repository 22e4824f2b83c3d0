import { Field } from '../../components/Field.tsx';
import { SelectField } from '../../components/SelectField.tsx';
import type { ErrorView } from '../../lib/errors.ts';
import type { LimitInputs } from '../../lib/key-limits.ts';

interface Props {
  value: LimitInputs;
  onChange: (value: LimitInputs) => void;
  /** Client-side messages (per_minute, per_day, remaining, refill) and the server's (rate_limit, remaining, refill). */
  error: ErrorView | null;
  open: boolean;
  onToggle: (open: boolean) => void;
}

const INTERVALS = [
  { value: 'month', label: 'Month (on the 1st, UTC)' },
  { value: 'day', label: 'Day (at midnight UTC)' },
];

export const LIMIT_FIELDS = ['per_minute', 'per_day', 'rate_limit', 'remaining', 'refill'];

/** The optional limits of a new key, folded away until asked for (or until one of them is refused). */
export function KeyLimitFields({ value, onChange, error, open, onToggle }: Props) {
  const set = (field: keyof LimitInputs) => (v: string) => onChange({ ...value, [field]: v } as LimitInputs);
  const fields = error?.fields ?? {};
  return (
    <details class="limits" open={open} onToggle={(e) => onToggle((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>Limits of this key (optional)</summary>
      <p class="hint">Inside your account’s own limits: a request must fit both. Leave a box empty for no limit.</p>
      <div class="form-row">
        <Field label="Requests per minute" name="key-per-minute" type="number" inputMode="numeric" min={1} step={1} value={value.perMinute} onValue={set('perMinute')} error={fields.per_minute ?? fields.rate_limit} />
        <Field label="Requests per day (UTC)" name="key-per-day" type="number" inputMode="numeric" min={1} step={1} value={value.perDay} onValue={set('perDay')} error={fields.per_day} />
      </div>
      <div class="form-row">
        <Field label="Number of uses" name="key-uses" type="number" inputMode="numeric" min={1} step={1} value={value.uses} onValue={set('uses')} error={fields.remaining} hint="Each admitted request spends one; with none left, the key is refused." />
      </div>
      <div class="form-row">
        <Field label="Refill uses to" name="key-refill" type="number" inputMode="numeric" min={1} step={1} value={value.refillAmount} onValue={set('refillAmount')} error={fields.refill} hint="Optional: sets the uses left back to this number." />
        <SelectField label="Refill every" name="key-refill-interval" value={value.refillInterval} options={INTERVALS} onValue={set('refillInterval')} />
      </div>
    </details>
  );
}
