import { useEffect, useState } from 'preact/hooks';
import { ActionForm } from '../components/ActionForm.tsx';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { Field } from '../components/Field.tsx';
import { SubmitButton } from '../components/SubmitButton.tsx';
import { gatehouse, type Chat } from '../lib/api.ts';
import { useAction } from '../lib/hooks.ts';

/** Renames a chat; an empty title removes it ("Untitled"). Streams see chat.updated. */
export function ChatTitleForm({ chat, onSaved, onCancel }: { chat: Chat; onSaved: (chat: Chat) => void; onCancel: () => void }) {
  const [title, setTitle] = useState(chat.title ?? '');
  const { run, busy, error } = useAction(async () => {
    onSaved(await gatehouse.chats.update(chat.id, { title: title.trim() || null }));
  });
  // Opened by the Rename button: straight to the field.
  useEffect(() => document.getElementById('field-chat-title')?.focus(), []);
  return (
    <section class="card" aria-labelledby="rename-title">
      <h2 id="rename-title">Rename this chat</h2>
      <ErrorAlert error={error} />
      <ActionForm class="form" aria-labelledby="rename-title" onSubmit={() => run()}>
        <Field label="Title" name="chat-title" maxLength={200} hint="Leave it empty to remove the title." value={title} onValue={setTitle} error={error?.fields.title} />
        <div class="actions">
          <SubmitButton busy={busy} busyLabel="Saving…">
            Save title
          </SubmitButton>
          <button type="button" class="button button-secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </ActionForm>
    </section>
  );
}
