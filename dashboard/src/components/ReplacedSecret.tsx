import { formatDateTime } from '../lib/format.ts';
import { SecretOnce } from './SecretOnce.tsx';
import { SelectField } from './SelectField.tsx';

/**
 * What replacing a secret (an API key's Roll, a webhook's secret rotation) shows the same way: how
 * long the old secret keeps working, and the new one shown once. Each dialog keeps its own words.
 */

const PERIODS = [
  { value: '3600', label: 'For 1 hour' },
  { value: '86400', label: 'For 24 hours' },
  { value: '604800', label: 'For 7 days' },
];

interface PeriodProps {
  label: string;
  name: string;
  /** The choice of no period (value '0'), in the dialog's words. */
  noneLabel: string;
  /** Seconds, as text. */
  value: string;
  onValue: (value: string) => void;
  error: string | undefined;
}

/** How long the old secret keeps working beside the new one: none, an hour, a day or a week. */
export function OldSecretPeriodField({ noneLabel, ...rest }: PeriodProps) {
  return <SelectField {...rest} options={[{ value: '0', label: noneLabel }, ...PERIODS]} />;
}

interface NewSecretProps {
  id: string;
  title: string;
  secret: string | null;
  /** When the old secret stops; null: it already has. */
  oldUntil: string | null;
  /** What happens until then, given the formatted date. */
  untilText: (until: string) => string;
  /** What it means that the old secret has stopped. */
  stoppedText: string;
  onDone: () => void;
}

/** The new secret, shown once, and until when the old one still works. */
export function NewSecretOnce({ oldUntil, untilText, stoppedText, ...rest }: NewSecretProps) {
  return <SecretOnce {...rest} explanation={`Copy it now: this is the only time it is shown. ${oldUntil ? untilText(formatDateTime(oldUntil)) : stoppedText}`} />;
}
