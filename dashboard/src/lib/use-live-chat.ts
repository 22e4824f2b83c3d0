import { useEffect, useReducer } from 'preact/hooks';
import { gatehouse, type Chat, type Message } from './api.ts';
import { chatLogReducer, emptyChatLog, messagesOf, needsReplay } from './chat-log.ts';
import { useAction, useResource } from './hooks.ts';
import { useChatStream } from './use-chat-stream.ts';

const PAGE_SIZE = 100;

/**
 * One chat as it is now: its newest messages (older ones on request), kept current by its live
 * stream. The first page is read once the stream is connected, so no message falls between the
 * two (one in both is kept once: chat-log.ts merges by id); a stream that cannot open (a chat
 * that is not there) lets the page read and show why.
 */
export function useLiveChat(chatId: string) {
  const [log, dispatch] = useReducer(chatLogReducer, emptyChatLog);
  const stream = useChatStream(chatId, (event) => dispatch({ type: 'event', event }));
  const ready = stream.opened || stream.status === 'failed';
  const first = useResource(async () => {
    if (!ready) return null;
    const [chat, page] = await Promise.all([gatehouse.chats.get(chatId), gatehouse.chats.messages.list(chatId, { limit: PAGE_SIZE })]);
    dispatch({ type: 'loaded', chat, page });
    // The agent's name is a nicety: a chat whose agent cannot be read still shows.
    return { agent: await gatehouse.agents.get(chat.agent_id).catch(() => null) };
  }, [chatId, ready]);
  const earlier = useAction(async () => {
    if (!log.olderCursor) return;
    dispatch({ type: 'earlier', page: await gatehouse.chats.messages.list(chatId, { limit: PAGE_SIZE, cursor: log.olderCursor }) });
  });

  // A reply that was already streaming when the page opened (or a delta that could not be
  // placed): the chat's events from its first one rebuild the text exactly. Once per page.
  const replay = needsReplay(log);
  useEffect(() => {
    if (!replay || stream.replayed) return;
    dispatch({ type: 'replaying' });
    stream.replay();
  }, [replay, stream.replayed]);

  return {
    chat: log.chat,
    agent: first.data?.agent ?? null,
    messages: messagesOf(log),
    loaded: log.loaded,
    error: first.error,
    stream,
    earlier: { available: log.olderCursor !== null, busy: earlier.busy, error: earlier.error, load: () => void earlier.run() },
    /** The answer to a message sent from this page (the stream brings it too: it is kept once). */
    sent: (message: Message) => dispatch({ type: 'message', message }),
    /** The answer to a rename from this page. */
    renamed: (chat: Chat) => dispatch({ type: 'chat', chat }),
  };
}
