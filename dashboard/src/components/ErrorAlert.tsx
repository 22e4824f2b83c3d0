import type { ErrorView } from '../lib/errors.ts';

/**
 * The message of a failed call, announced to screen readers. Field messages the form shows
 * beside their inputs are listed here too, so nothing depends on finding the right input.
 */
export function ErrorAlert({ error, id }: { error: ErrorView | null; id?: string }) {
  if (!error) return null;
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
