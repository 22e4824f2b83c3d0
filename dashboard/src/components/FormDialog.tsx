import type { ComponentChildren } from 'preact';
import type { ErrorView } from '../lib/errors.ts';
import { ActionForm } from './ActionForm.tsx';
import { ErrorAlert } from './ErrorAlert.tsx';
import { SubmitButton } from './SubmitButton.tsx';

/** The form's call, as `useAction` gives it: submitting runs it; busy and its error show here. */
interface Submission {
  run: () => unknown;
  busy: boolean;
  error: ErrorView | null;
}

interface Props {
  /** The heading's id: the Modal's `labelledBy` names it, and it labels the form too. */
  titleId: string;
  title: string;
  /** What the dialog says before the form, in an element of its own (`<p class="dialog-body">`, a hint…). */
  intro?: ComponentChildren;
  submission: Submission;
  /** A sensitive change: a 403 mfa_required asks for the second factor in the alert, then submits again. */
  stepUp?: boolean;
  /** Under the alert: what the user can do about the error. */
  errorHint?: ComponentChildren;
  submitLabel: string;
  busyLabel: string;
  variant?: 'primary' | 'danger';
  onCancel: () => void;
  /** The fields. */
  children: ComponentChildren;
}

/**
 * What a Modal shows for a form: heading, intro, error, the fields, then Cancel and the submit
 * button. The Modal itself stays with the caller, because it outlives this form: the form is
 * mounted per opening (each opening starts afresh), and a dialog with a second step swaps the form
 * for its result inside the same Modal. Cancel carries `dialog-cancel`, so a destructive dialog
 * opens on it with `initialFocus=".dialog-cancel"`, as ConfirmDialog does.
 */
export function FormDialog({ titleId, title, intro, submission, stepUp = false, errorHint, submitLabel, busyLabel, variant = 'primary', onCancel, children }: Props) {
  const { run, busy, error } = submission;
  return (
    <>
      <h2 id={titleId}>{title}</h2>
      {intro}
      <ErrorAlert error={error} onStepUp={stepUp ? () => void run() : undefined} />
      {errorHint}
      <ActionForm class="form" aria-labelledby={titleId} onSubmit={() => run()}>
        {children}
        <div class="actions">
          <button type="button" class="button button-secondary dialog-cancel" onClick={onCancel}>
            Cancel
          </button>
          <SubmitButton busy={busy} busyLabel={busyLabel} variant={variant}>
            {submitLabel}
          </SubmitButton>
        </div>
      </ActionForm>
    </>
  );
}
