import type { ComponentChildren, JSX } from 'preact';

type FormAttributes = Omit<JSX.HTMLAttributes<HTMLFormElement>, 'onSubmit'>;

/**
 * A form that never navigates: submitting it (Enter in a field, or its submit button) calls
 * `onSubmit`, so every form keeps the browser's own keyboard and validation behaviour.
 */
export function ActionForm({ onSubmit, children, ...attributes }: FormAttributes & { onSubmit: () => unknown; children: ComponentChildren }) {
  return (
    <form
      {...attributes}
      onSubmit={(e) => {
        e.preventDefault();
        void onSubmit();
      }}
    >
      {children}
    </form>
  );
}
