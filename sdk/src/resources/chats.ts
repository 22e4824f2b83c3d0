/** Conversations with agents and their messages (scopes chats:read / chats:write). */
import { fillPath, type Call, type CreateOptions, type RequestOptions } from '../core.js';
import type { QueryParams, RequestBody } from '../operations.js';
import { ROUTES } from '../routes.js';
import type { EventStream, OpenStream, StreamOptions } from '../streams/event-stream.js';

export function chatsResource(call: Call, openStream: OpenStream) {
  return {
    create: (body: RequestBody<'createChat'>, options?: CreateOptions) => call('createChat', { body }, options),
    /** Filter with `agent_id`. */
    list: (query?: QueryParams<'listChats'>, options?: RequestOptions) => call('listChats', { query }, options),
    get: (id: string, options?: RequestOptions) => call('getChat', { params: { id } }, options),
    /** Rename (`title: null` removes the title); streams see `chat.updated`. */
    update: (id: string, body: RequestBody<'updateChat'>, options?: RequestOptions) => call('updateChat', { params: { id }, body }, options),
    delete: (id: string, options?: RequestOptions) => call('deleteChat', { params: { id } }, options),
    /**
     * Live events of one chat (`message.created`, `message.delta`, `message.completed`,
     * `chat.updated`, `chat.deleted`), reconnecting and resuming by itself; the iteration ends
     * when the chat is deleted. `for await (const event of gh.chats.stream(chatId)) …`
     */
    stream: (chatId: string, options: StreamOptions = {}): EventStream => openStream({ ...options, path: fillPath(ROUTES.streamChat.at[1], { id: chatId }) }),
    messages: {
      /** A `user` message is announced to the agent's runtime as `chat.message.created`. */
      create: (chatId: string, body: RequestBody<'createMessage'>, options?: CreateOptions) => call('createMessage', { params: { id: chatId }, body }, options),
      list: (chatId: string, query?: QueryParams<'listMessages'>, options?: RequestOptions) => call('listMessages', { params: { id: chatId }, query }, options),
      /**
       * A streaming reply (created with `status: 'streaming'`) gets its next piece. Numbered from 1;
       * sending a number again changes nothing, so a retry is always safe.
       */
      appendDelta: (chatId: string, messageId: string, body: RequestBody<'appendMessageDelta'>, options?: RequestOptions) =>
        call('appendMessageDelta', { params: { id: chatId, message_id: messageId }, body }, options),
      /** Ends a streaming reply (`chat.message.completed`); completing it again changes nothing. */
      complete: (chatId: string, messageId: string, options?: RequestOptions) => call('completeMessage', { params: { id: chatId, message_id: messageId } }, options),
    },
  };
}
