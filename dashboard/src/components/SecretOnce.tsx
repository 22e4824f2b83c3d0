import { useLayoutEffect, useRef } from 'preact/hooks';
import { CopyButton } from './CopyButton.tsx';

interface Props {
  title: string;
  /** Null when the server replayed an earlier answer (Idempotency-Key): it does not keep secrets. */
  secret: string | null;
  id: string;
  explanation: string;
  onDone: () => void;
}

/** A secret the server shows only once (API key, webhook signing secret), with a copy button. */
export function SecretOnce({ title, secret, id, explanation, onDone }: Props) {
  // Focus moves here when the secret appears, so it is announced and the next Tab reaches Copy.
  // In the same commit as the DOM (layout effect, not a later one): the form's button that had the
  // focus is gone by then, and a Tab pressed in between would start again from the page's top.
  const heading = useRef<HTMLHeadingElement>(null);
  useLayoutEffect(() => heading.current?.focus(), [secret]);
  return (
    <section class="secret-once" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} ref={heading} tabIndex={-1}>
        {title}
      </h2>
      {secret === null ? (
        <p class="alert alert-warning">
          This answer was a replay of an earlier one, and the server does not keep secrets, so it cannot be shown again. If you did not store it, remove this
          one below and create another.
        </p>
      ) : (
        <>
          <p>{explanation}</p>
          <div class="secret-row">
            <label class="visually-hidden" for={id}>
              {title}
            </label>
            <input id={id} class="secret" type="text" readOnly value={secret} spellcheck={false} autocomplete="off" onFocus={(e) => e.currentTarget.select()} />
            <CopyButton text={secret} inputId={id} />
          </div>
        </>
      )}
      <button type="button" class="button button-primary" onClick={onDone}>
        I have stored it
      </button>
    </section>
  );
}
