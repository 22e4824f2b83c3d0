import { FieldFrame, fieldIds } from './FieldFrame.tsx';

interface Option {
  value: string;
  label: string;
}

interface Props {
  label: string;
  name: string;
  value: string;
  options: Option[];
  onValue: (value: string) => void;
  required?: boolean;
  hint?: string;
  /** The server's message for this field, if any. */
  error?: string | undefined;
}

/** A labelled <select> with its hint and error tied to it, like Field. */
export function SelectField({ label, name, value, options, onValue, required, hint, error }: Props) {
  const { id, describedBy } = fieldIds(name, hint, error);
  return (
    <FieldFrame id={id} label={label} hint={hint} error={error}>
      <select
        id={id}
        name={name}
        value={value}
        required={required}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={describedBy}
        onChange={(event) => onValue((event.currentTarget as HTMLSelectElement).value)}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </FieldFrame>
  );
}
