/**
 * The messages one chat's live stream announces, kept while the component is mounted and signed
 * in (see apply-chat-event.ts for what each event does). A delta this stream cannot apply (its
 * message was already streaming before the stream started, or a delta was missed) has the newest
 * page fetched again, at most once a second, and `onFirstPage` folds it into the list. So does
 * every connection of the stream once it is established: a message posted between the list's
 * first page and the stream's start is then in the list too.
 */
import type { Schemas, StreamEvent } from '@gatehouse/sdk';
import { useCallback, useEffect, useRef, useState } from 'react';
import { applyChatEvent, NO_LIVE_MESSAGES, type LiveMessages } from './apply-chat-event.js';
import { coalesce, type Coalescer } from './coalesce.js';
import { useChatStream } from './use-chat-stream.js';

type Message = Schemas['Message'];

export const RESYNC_INTERVAL_MS = 1_000;

export interface LiveMessagesOptions {
  fetchFirstPage(): Promise<Message[]>;
  onFirstPage(page: Message[]): void;
}

export function useLiveMessages(chatId: string, enabled: boolean, { fetchFirstPage, onFirstPage }: LiveMessagesOptions): { messages: LiveMessages; following: boolean } {
  // Written only by the stream's events (never in a state updater, which StrictMode runs twice).
  const latest = useRef<{ chatId: string; messages: LiveMessages }>({ chatId, messages: NO_LIVE_MESSAGES });
  const [state, setState] = useState(latest.current);
  const resync = useRef<Coalescer | null>(null);
  const page = useRef({ fetchFirstPage, onFirstPage });
  page.current = { fetchFirstPage, onFirstPage };

  useEffect(() => {
    if (latest.current.chatId !== chatId || latest.current.messages.size > 0) {
      latest.current = { chatId, messages: NO_LIVE_MESSAGES };
      setState(latest.current);
    }
    if (!enabled) return;
    let active = true;
    const coalescer = coalesce(async () => {
      const messages = await page.current.fetchFirstPage();
      if (active) page.current.onFirstPage(messages);
    }, RESYNC_INTERVAL_MS);
    resync.current = coalescer;
    return () => {
      active = false;
      coalescer.dispose();
      if (resync.current === coalescer) resync.current = null;
    };
  }, [chatId, enabled]);

  const onEvent = useCallback(
    (event: StreamEvent) => {
      if (latest.current.chatId !== chatId) return;
      const result = applyChatEvent(latest.current.messages, event);
      if (result.live !== latest.current.messages) {
        latest.current = { chatId, messages: result.live };
        setState(latest.current);
      }
      if (result.resync) resync.current?.request();
    },
    [chatId],
  );
  const onOpen = useCallback(() => resync.current?.request(), []);
  const following = useChatStream(chatId, enabled, onEvent, onOpen);

  return { messages: enabled && state.chatId === chatId ? state.messages : NO_LIVE_MESSAGES, following };
}
