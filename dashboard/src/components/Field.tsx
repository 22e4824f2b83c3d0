import type { JSX } from 'preact';
import { FieldFrame, fieldIds } from './FieldFrame.tsx';

type InputProps = Omit<JSX.InputHTMLAttributes<HTMLInputElement>, 'onInput' | 'value' | 'name' | 'id'>;

interface FieldProps extends InputProps {
  label: string;
  name: string;
  value: string;
  onValue: (value: string) => void;
  /** The server's message for this field, if any. */
  error?: string | undefined;
  hint?: string;
  multiline?: boolean;
}

/** A labelled input with its hint and error tied to it (aria-describedby, aria-invalid). */
export function Field({ label, name, value, onValue, error, hint, multiline, ...rest }: FieldProps) {
  const { id, describedBy } = fieldIds(name, hint, error);
  const common = {
    id, name, value,
    'aria-invalid': error ? ('true' as const) : undefined,
    'aria-describedby': describedBy,
    onInput: (event: Event) => onValue((event.currentTarget as HTMLInputElement | HTMLTextAreaElement).value),
  };
  return (
    <FieldFrame id={id} label={label} hint={hint} error={error}>
      {multiline ? (
        <textarea {...common} rows={4} required={rest.required} maxLength={rest.maxLength} />
      ) : (
        <input {...rest} {...common} />
      )}
    </FieldFrame>
  );
}
