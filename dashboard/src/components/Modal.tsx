import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

interface Props {
  open: boolean;
  /** The id(s) of the heading(s) naming the dialog (a missing id is ignored). */
  labelledBy: string;
  onCancel: () => void;
  /** A selector, inside the dialog, of what gets the focus when it opens. */
  initialFocus?: string;
  /** Wider than a confirmation, for a form of several fields. */
  wide?: boolean;
  children: ComponentChildren;
}

/**
 * A modal <dialog>: the browser traps focus inside it, Escape cancels, and focus returns to the
 * element that opened it when it closes.
 */
export function Modal({ open, labelledBy, onCancel, initialFocus, wide = false, children }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(null);

  useEffect(() => {
    const el = dialog.current;
    if (!el) return;
    if (open && !el.open) {
      opener.current = document.activeElement;
      el.showModal();
      if (initialFocus) el.querySelector<HTMLElement>(initialFocus)?.focus();
    } else if (!open && el.open) {
      el.close();
      if (opener.current instanceof HTMLElement && opener.current.isConnected) opener.current.focus();
    }
  }, [open]);

  return (
    <dialog
      ref={dialog}
      class={wide ? 'dialog dialog-wide' : 'dialog'}
      aria-labelledby={labelledBy}
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
    >
      {children}
    </dialog>
  );
}
