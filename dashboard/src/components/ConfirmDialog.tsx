import type { ComponentChildren } from 'preact';
import { Modal } from './Modal.tsx';

interface Props {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

/** "Are you sure?" in a Modal. Cancel is focused first, so a stray Enter does not destroy anything. */
export function ConfirmDialog({ open, title, children, confirmLabel, busy = false, onConfirm, onCancel }: Props) {
  return (
    <Modal open={open} labelledBy="confirm-title" onCancel={onCancel} initialFocus=".dialog-cancel">
      <h2 id="confirm-title">{title}</h2>
      <div class="dialog-body">{children}</div>
      <div class="actions">
        <button type="button" class="button button-secondary dialog-cancel" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" class="button button-danger" aria-disabled={busy ? 'true' : undefined} onClick={() => !busy && onConfirm()}>
          {busy ? 'Working…' : confirmLabel}
        </button>
      </div>
    </Modal>
  );
}
