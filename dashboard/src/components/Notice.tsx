import type { ComponentChildren } from 'preact';

/** A success or information line, read out politely by screen readers. */
export function Notice({ children, tone = 'success' }: { children: ComponentChildren; tone?: 'success' | 'info' | 'warning' }) {
  return (
    <div class={`alert alert-${tone}`} role="status">
      {children}
    </div>
  );
}
