import type { Message } from '../lib/api.ts';
import { formatDateTime } from '../lib/format.ts';
import { useStayAtBottom } from '../lib/use-stay-at-bottom.ts';

function MessageItem({ message, author }: { message: Message; author: string }) {
  const streaming = message.status === 'streaming';
  return (
    <li class={`message message-${message.role}`} data-status={message.status}>
      <p class="message-meta">
        <span class="message-author">{author}</span>
        <time dateTime={message.created_at}>{formatDateTime(message.created_at)}</time>
        {streaming && <span class="badge badge-info writing">writing…</span>}
      </p>
      {/* Keyed by status: the finished reply is a new node, so the live region reads it once, whole, instead of delta by delta. */}
      {(message.content || !streaming) && (
        <p key={message.status} class="message-text">
          {message.content}
        </p>
      )}
    </li>
  );
}

/**
 * The conversation, oldest first. A polite live region that announces additions: a new message,
 * an agent starting to write, and a finished reply (not each piece of it).
 */
export function MessageList({ messages, agentName }: { messages: Message[]; agentName: string }) {
  const last = messages.at(-1);
  useStayAtBottom(`${messages.length} ${last?.id} ${last?.content.length} ${last?.status}`);
  return (
    <ol class="chat-log" aria-label="Messages" aria-live="polite" aria-relevant="additions">
      {messages.map((m) => (
        <MessageItem key={m.id} message={m} author={m.role === 'user' ? 'You' : agentName} />
      ))}
    </ol>
  );
}
