import type { ComponentChildren } from 'preact';

/** The ids that tie a field's control to its hint and error (aria-describedby). */
export function fieldIds(name: string, hint?: string, error?: string) {
  const id = `field-${name}`;
  const describedBy = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ') || undefined;
  return { id, describedBy };
}

/** What every field has around its control: the label, the hint and the server's error. */
export function FieldFrame({ id, label, hint, error, children }: { id: string; label: string; hint?: string | undefined; error?: string | undefined; children: ComponentChildren }) {
  return (
    <div class={`field${error ? ' field-invalid' : ''}`}>
      <label for={id}>{label}</label>
      {children}
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && <p class="field-error" id={`${id}-error`}>{error}</p>}
    </div>
  );
}
