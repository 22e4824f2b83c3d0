import type { Schemas } from '@gatehouse/sdk';
import { useCallback } from 'react';
import { useGatehouse } from './provider.js';
import { useList, type ListState } from './use-list.js';
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
  return useList((cursor) => gh.agents.list({ limit: pageSize, ...(cursor ? { cursor } : {}) }), [gh, pageSize], status);
}

/** The account's chats, newest first; with `agentId`, only that agent's. */
export function useChats({ pageSize = 20, agentId }: PageOptions & { agentId?: string } = {}): ListState<Chat> {
  const gh = useGatehouse();
  const { status } = useSession();
  return useList((cursor) => gh.chats.list({ limit: pageSize, ...(agentId ? { agent_id: agentId } : {}), ...(cursor ? { cursor } : {}) }), [gh, pageSize, agentId], status);
}

export interface MessagesState extends ListState<Message> {
  /** Posts a `user` message; it appears first in `items` once the server has it. */
  send(content: string): Promise<Message>;
}

/** A chat's messages, newest first (render the list inverted for a chat screen). */
export function useMessages(chatId: string, { pageSize = 20 }: PageOptions = {}): MessagesState {
  const gh = useGatehouse();
  const { status } = useSession();
  const list = useList((cursor) => gh.chats.messages.list(chatId, { limit: pageSize, ...(cursor ? { cursor } : {}) }), [gh, chatId, pageSize], status);
  const { setItems } = list;
  const send = useCallback(
    async (content: string) => {
      const message = await gh.chats.messages.create(chatId, { role: 'user', content });
      setItems((items) => (items.some((m) => m.id === message.id) ? items : [message, ...items]));
      return message;
    },
    [gh, chatId, setItems],
  );
  return { ...list, send };
}
