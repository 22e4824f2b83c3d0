import type { Schemas } from '@gatehouse/sdk';
import { useCallback, useMemo } from 'react';
import { mergeLiveMessages, mergeNewest } from './apply-chat-event.js';
import { useGatehouse, useOrganizationContext } from './provider.js';
import { useList, type ListState } from './use-list.js';
import { useLiveMessages } from './use-live-messages.js';
import { useSession } from './use-session.js';

export type Agent = Schemas['Agent'];
export type Chat = Schemas['Chat'];
export type Message = Schemas['Message'];

export interface PageOptions {
  /** Items per page, 1–100. Default 20. */
  pageSize?: number;
}

/** The account's agents, newest first. */
export function useAgents({ pageSize = 20 }: PageOptions = {}): ListState<Agent> {
  const gh = useGatehouse();
  const { status } = useSession();
  const { organization } = useOrganizationContext();
  return useList((cursor) => gh.agents.list({ limit: pageSize, ...(cursor ? { cursor } : {}) }), [gh, pageSize, organization], status);
}

/** The account's chats, newest first; with `agentId`, only that agent's. */
export function useChats({ pageSize = 20, agentId }: PageOptions & { agentId?: string } = {}): ListState<Chat> {
  const gh = useGatehouse();
  const { status } = useSession();
  const { organization } = useOrganizationContext();
  return useList((cursor) => gh.chats.list({ limit: pageSize, ...(agentId ? { agent_id: agentId } : {}), ...(cursor ? { cursor } : {}) }), [gh, pageSize, agentId, organization], status);
}

export interface MessagesState extends ListState<Message> {
  /** Posts a `user` message; it appears first in `items` once the server has it. */
  send(content: string): Promise<Message>;
  /**
   * The chat's live stream is followed: new messages and streaming replies show as they happen.
   * false while signed out, before it starts, and after an error reconnecting cannot cure (until
   * the app next comes to the foreground).
   */
  live: boolean;
}

/**
 * A chat's messages, newest first (render the list inverted for a chat screen), kept up to date
 * by the chat's live stream while mounted: new messages appear, a streaming reply's text grows
 * (`status: 'streaming'`) until it is replaced by the completed message.
 */
export function useMessages(chatId: string, { pageSize = 20 }: PageOptions = {}): MessagesState {
  const gh = useGatehouse();
  const { status } = useSession();
  const { organization } = useOrganizationContext();
  const list = useList((cursor) => gh.chats.messages.list(chatId, { limit: pageSize, ...(cursor ? { cursor } : {}) }), [gh, chatId, pageSize, organization], status);
  const { setItems } = list;
  const { messages: announced, following } = useLiveMessages(chatId, status === 'signed-in', {
    fetchFirstPage: async () => (await gh.chats.messages.list(chatId, { limit: pageSize })).data,
    onFirstPage: (page) => setItems((items) => mergeNewest(items, page)),
  });
  const items = useMemo(() => mergeLiveMessages(list.items, announced, list.hasMore), [list.items, announced, list.hasMore]);
  const send = useCallback(
    async (content: string) => {
      const message = await gh.chats.messages.create(chatId, { role: 'user', content });
      setItems((items) => mergeNewest(items, [message]));
      return message;
    },
    [gh, chatId, setItems],
  );
  return { ...list, items, send, live: following };
}
