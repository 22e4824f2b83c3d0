import type { ErrorView } from '../lib/errors.ts';
import { StepUpForm } from './StepUpForm.tsx';

/**
 * The message of a failed call, announced to screen readers. Field messages the form shows
 * beside their inputs are listed here too, so nothing depends on finding the right input.
 * `onStepUp`: for a sensitive change, what to run again once a refused 403 mfa_required has been
 * answered with a code (the alert then holds the code form).
 */
export function ErrorAlert({ error, id, onStepUp }: { error: ErrorView | null; id?: string; onStepUp?: () => void }) {
  if (!error) return null;
  if (error.code === 'mfa_required' && onStepUp) {
    return (
      <div class="alert alert-warning" role="alert" id={id}>
        <p class="alert-title">Confirm it is you: this change needs your second factor.</p>
        <StepUpForm onProved={onStepUp} />
      </div>
    );
  }
  const fieldMessages = Object.entries(error.fields).filter(([, message]) => message !== error.message);
  return (
    <div class="alert alert-error" role="alert" id={id}>
      <p class="alert-title">{error.message}</p>
      {fieldMessages.length > 0 && (
        <ul>
          {fieldMessages.map(([field, message]) => (
            <li key={field}>
              <strong>{field}</strong>: {message}
            </li>
          ))}
        </ul>
      )}
      {error.requestId && <p class="alert-meta">Request id: <code>{error.requestId}</code></p>}
    </div>
  );
}
