import type { ComponentChildren } from 'preact';

/** The form's submit button; while busy it stays focusable but says what is happening. */
export function SubmitButton({ busy, busyLabel, children, variant = 'primary' }: { busy: boolean; busyLabel?: string; children: ComponentChildren; variant?: 'primary' | 'danger' }) {
  return (
    <button type="submit" class={`button button-${variant}`} aria-disabled={busy ? "true" : undefined}>
      {busy ? busyLabel ?? 'Working…' : children}
    </button>
  );
}
