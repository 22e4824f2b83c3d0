/** Conversations with agents and their messages (scopes chats:read / chats:write). */
import type { Call, CreateOptions, RequestOptions } from '../core.js';
import type { QueryParams, RequestBody } from '../operations.js';

export function chatsResource(call: Call) {
  return {
    create: (body: RequestBody<'createChat'>, options?: CreateOptions) => call('createChat', { body }, options),
    /** Filter with `agent_id`. */
    list: (query?: QueryParams<'listChats'>, options?: RequestOptions) => call('listChats', { query }, options),
    get: (id: string, options?: RequestOptions) => call('getChat', { params: { id } }, options),
    delete: (id: string, options?: RequestOptions) => call('deleteChat', { params: { id } }, options),
    messages: {
      /** A `user` message is announced to the agent's runtime as `chat.message.created`. */
      create: (chatId: string, body: RequestBody<'createMessage'>, options?: CreateOptions) => call('createMessage', { params: { id: chatId }, body }, options),
      list: (chatId: string, query?: QueryParams<'listMessages'>, options?: RequestOptions) => call('listMessages', { params: { id: chatId }, query }, options),
    },
  };
}
