interface Option {
  value: string;
  label: string;
}

interface Props {
  legend: string;
  name: string;
  options: Option[];
  selected: string[];
  onChange: (selected: string[]) => void;
  hint?: string;
  error?: string | undefined;
}

/** A fieldset of checkboxes; arrow keys are not needed: each box is its own tab stop. */
export function CheckboxGroup({ legend, name, options, selected, onChange, hint, error }: Props) {
  const toggle = (value: string, on: boolean) =>
    onChange(on ? options.map((o) => o.value).filter((v) => v === value || selected.includes(v)) : selected.filter((v) => v !== value));
  return (
    <fieldset class={`field checkbox-group${error ? ' field-invalid' : ''}`} aria-describedby={error ? `field-${name}-error` : undefined}>
      <legend>{legend}</legend>
      {hint && <p class="hint">{hint}</p>}
      <div class="checkbox-grid">
        {options.map((option) => (
          <label key={option.value} class="checkbox">
            <input
              type="checkbox"
              name={name}
              value={option.value}
              checked={selected.includes(option.value)}
              onChange={(event) => toggle(option.value, (event.currentTarget as HTMLInputElement).checked)}
            />
            <span>{option.label}</span>
          </label>
        ))}
      </div>
      {error && <p class="field-error" id={`field-${name}-error`}>{error}</p>}
    </fieldset>
  );
}
