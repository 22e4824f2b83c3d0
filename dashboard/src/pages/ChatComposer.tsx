import { useState } from 'preact/hooks';
import { ActionForm } from '../components/ActionForm.tsx';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { Icon } from '../components/Icon.tsx';
import { SubmitButton } from '../components/SubmitButton.tsx';
import { gatehouse, type Message } from '../lib/api.ts';
import { useAction } from '../lib/hooks.ts';

/** Sends a user message to the chat (the agent's runtime hears of it as chat.message.created). */
export function ChatComposer({ chatId, onSent }: { chatId: string; onSent: (message: Message) => void }) {
  const [text, setText] = useState('');
  const { run, busy, error } = useAction(async () => {
    if (!text.trim()) return;
    const message = await gatehouse.chats.messages.create(chatId, { role: 'user', content: text });
    setText('');
    onSent(message);
  });
  const fieldError = error?.fields.content;
  return (
    <section class="composer" aria-labelledby="composer-title">
      <h2 id="composer-title" class="visually-hidden">
        Send a message
      </h2>
      <ErrorAlert error={error} />
      <ActionForm class="form" aria-labelledby="composer-title" onSubmit={() => run()}>
        <div class={`field${fieldError ? ' field-invalid' : ''}`}>
          <label for="field-message">Message</label>
          <textarea
            id="field-message"
            name="message"
            rows={3}
            required
            maxLength={32768}
            value={text}
            aria-invalid={fieldError ? 'true' : undefined}
            aria-describedby={fieldError ? 'field-message-hint field-message-error' : 'field-message-hint'}
            onInput={(event) => setText(event.currentTarget.value)}
            onKeyDown={(event) => {
              // Enter sends, as in any chat; Shift+Enter (or an IME composing text) keeps the newline.
              if (event.key !== 'Enter' || event.shiftKey || event.isComposing) return;
              event.preventDefault();
              event.currentTarget.form?.requestSubmit();
            }}
          />
          <p class="hint" id="field-message-hint">
            Enter sends; Shift+Enter starts a new line.
          </p>
          {fieldError && (
            <p class="field-error" id="field-message-error">
              {fieldError}
            </p>
          )}
        </div>
        <div class="actions">
          <SubmitButton busy={busy} busyLabel="Sending…">
            <Icon name="send" />
            Send
          </SubmitButton>
        </div>
      </ActionForm>
    </section>
  );
}
