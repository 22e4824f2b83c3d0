import { useRef, useState } from 'preact/hooks';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { Icon } from '../components/Icon.tsx';
import { Link } from '../components/Link.tsx';
import { MessageList } from '../components/MessageList.tsx';
import { Notice } from '../components/Notice.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { gatehouse } from '../lib/api.ts';
import { formatDateTime } from '../lib/format.ts';
import { useConfirm } from '../lib/use-confirm.ts';
import { useLiveChat } from '../lib/use-live-chat.ts';
import { ChatComposer } from './ChatComposer.tsx';
import { ChatTitleForm } from './ChatTitleForm.tsx';

/** `/chats/<id>`: the conversation, live while the page is open; send, rename, delete. */
export function ChatPage({ chatId }: { chatId: string }) {
  const live = useLiveChat(chatId);
  const [renaming, setRenaming] = useState(false);
  const [deletedHere, setDeletedHere] = useState(false);
  const renameButton = useRef<HTMLButtonElement>(null);
  const remove = useConfirm(async (id: string) => {
    await gatehouse.chats.delete(id);
    setDeletedHere(true);
  });
  const closeRename = () => {
    setRenaming(false);
    renameButton.current?.focus();
  };

  const { chat, stream } = live;
  // The stream may end (chat_deleted) before the answer to this page's own DELETE arrives.
  const deletedElsewhere = !deletedHere && !remove.busy && stream.status === 'deleted';
  const open = chat !== null && !deletedHere && !deletedElsewhere;
  const agentName = live.agent?.name ?? 'Agent';

  return (
    <>
      <PageHeading title={chat ? (chat.title ?? 'Untitled chat') : 'Chat'}>
        {chat && (
          <>
            With <strong>{agentName}</strong>, started {formatDateTime(chat.created_at)}. <Link href="/chats">All chats</Link>
          </>
        )}
      </PageHeading>
      <ErrorAlert error={live.error} />
      {live.error && (
        <p>
          <Link href="/chats">Back to your chats</Link>
        </p>
      )}
      {deletedHere && (
        <Notice>
          The chat is deleted. <Link href="/chats">Back to your chats</Link>
        </Notice>
      )}
      {deletedElsewhere && <Notice tone="warning">This chat was deleted elsewhere (or its agent was): nothing more will arrive here.</Notice>}
      {open && (
        <div class="actions chat-tools">
          <button type="button" ref={renameButton} class="button button-secondary button-small" aria-expanded={renaming ? 'true' : 'false'} onClick={() => (renaming ? closeRename() : setRenaming(true))}>
            <Icon name="edit" />
            Rename
          </button>
          <button type="button" class="button button-danger button-small" onClick={() => remove.ask(chatId)}>
            <Icon name="trash" />
            Delete chat
          </button>
        </div>
      )}
      {open && renaming && (
        <ChatTitleForm
          chat={chat}
          onSaved={(saved) => {
            live.renamed(saved);
            closeRename();
          }}
          onCancel={closeRename}
        />
      )}
      <ErrorAlert error={remove.error} />
      {open && stream.status === 'failed' && (
        <div class="stream-failed">
          <ErrorAlert error={stream.error} />
          <button type="button" class="button button-secondary" onClick={stream.resume}>
            Follow the chat again
          </button>
        </div>
      )}
      {!live.error && !deletedHere && (
        <section class="card chat" aria-labelledby="messages-title" aria-busy={live.loaded ? undefined : 'true'}>
          <h2 id="messages-title" class="visually-hidden">
            Messages
          </h2>
          {live.earlier.available && (
            <div class="actions earlier">
              <button type="button" class="button button-secondary button-small" aria-disabled={live.earlier.busy ? 'true' : undefined} onClick={live.earlier.load}>
                {live.earlier.busy ? 'Loading…' : 'Show earlier messages'}
              </button>
            </div>
          )}
          <ErrorAlert error={live.earlier.error} />
          {live.loaded ? (
            <MessageList messages={live.messages} agentName={agentName} />
          ) : (
            <p role="status" class="loading">
              Loading…
            </p>
          )}
          {live.loaded && live.messages.length === 0 && (
            <EmptyState icon="chats" title="No messages yet.">
              Write the first one below; the agent’s runtime answers here.
            </EmptyState>
          )}
        </section>
      )}
      {open && live.loaded && <ChatComposer chatId={chatId} onSent={live.sent} />}
      <ConfirmDialog open={remove.target !== null} title="Delete this chat?" confirmLabel="Delete chat" busy={remove.busy} onConfirm={remove.confirm} onCancel={remove.cancel}>
        <p>“{chat?.title ?? 'Untitled chat'}” and all of its messages are deleted. This cannot be undone.</p>
      </ConfirmDialog>
    </>
  );
}
