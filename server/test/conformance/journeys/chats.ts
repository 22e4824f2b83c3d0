import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/kernel/ids.js';
import { signUp, type GetContext } from '../context.js';

/** The most text a message holds (chats.schemas.ts CHAT_LIMITS.content; the document's maxLength). */
const MESSAGE_MAX = 32_768;

/** Chats with an agent and their messages, posted by the user and by the agent's runtime (an API key). */
export function chatsJourney(ctx: GetContext): void {
  describe('chats and messages', () => {
    it('starts a chat, exchanges messages, pages them, and deletes the chat', async () => {
      const actor = await signUp(ctx().api, 'chats');
      const agent = await actor.api.call('createAgent', { token: actor.access, json: { name: 'Helper', model: 'gpt-4o' } }, 201);
      const other = await actor.api.call('createAgent', { token: actor.access, json: { name: 'Other', model: 'gpt-4o' } }, 201);
      const create = { token: actor.access, headers: { 'idempotency-key': 'chat-1' }, json: { agent_id: agent.body.id, title: 'Hello' } };
      const chat = await actor.api.call('createChat', create, 201);
      expect(chat.headers.get('location')).toBe(`/v1/chats/${chat.body.id}`);
      expect((await actor.api.call('createChat', create, 201)).headers.get('idempotent-replayed')).toBe('true');
      expect((await actor.api.call('createChat', { ...create, json: { agent_id: other.body.id } }, 422)).body.code).toBe('idempotency_key_reused');
      await actor.api.call('createChat', { token: actor.access, json: { agent_id: other.body.id } }, 201);
      // A refusal from the service is stored too, and replays as the same problem document.
      const orphan = { token: actor.access, headers: { 'idempotency-key': 'chat-orphan' }, json: { agent_id: 'agt_00000000000000000000000000' } };
      expect((await actor.api.call('createChat', orphan, 400)).body.errors[0].field).toBe('/agent_id');
      expect((await actor.api.call('createChat', orphan, 400)).headers.get('idempotent-replayed')).toBe('true');

      const filtered = await actor.api.call('listChats', { token: actor.access, query: { agent_id: agent.body.id } }, 200);
      expect(filtered.body.data.map((c: { id: string }) => c.id)).toEqual([chat.body.id]);
      const page1 = await actor.api.call('listChats', { token: actor.access, query: { limit: 1 } }, 200);
      await actor.api.call('listChats', { token: actor.access, query: { limit: 1, cursor: page1.body.next_cursor } }, 200);
      await actor.api.call('getChat', { token: actor.access, path: { id: chat.body.id } }, 200);

      const runtime = await actor.api.call('createApiKey', { token: actor.access, json: { name: 'runtime', scopes: ['chats:read', 'chats:write'] } }, 201);
      const hello = { token: actor.access, path: { id: chat.body.id }, headers: { 'idempotency-key': 'msg-1' }, json: { role: 'user', content: 'Hi there' } };
      const question = await actor.api.call('createMessage', hello, 201);
      expect((await actor.api.call('createMessage', hello, 201)).body).toEqual(question.body);
      expect((await actor.api.call('createMessage', { ...hello, json: { role: 'user', content: 'Changed' } }, 422)).body.code).toBe('idempotency_key_reused');
      await actor.api.call('createMessage', { token: runtime.body.key, path: { id: chat.body.id }, json: { role: 'assistant', content: 'Hello! How can I help?' } }, 201);
      const messages = await actor.api.call('listMessages', { token: runtime.body.key, path: { id: chat.body.id }, query: { limit: 1 } }, 200);
      expect(messages.body.data[0].role).toBe('assistant');
      const older = await actor.api.call('listMessages', { token: actor.access, path: { id: chat.body.id }, query: { cursor: messages.body.next_cursor } }, 200);
      expect(older.body.data.map((m: { id: string }) => m.id)).toEqual([question.body.id]);

      await actor.api.callInvalid('createMessage', { token: actor.access, path: { id: chat.body.id }, json: { role: 'system', content: 'x' } }, 400);
      await actor.api.callInvalid('createMessage', { token: actor.access, path: { id: chat.body.id }, json: { role: 'user', content: '' } }, 400);

      await actor.api.call('deleteChat', { token: actor.access, path: { id: chat.body.id } }, 204);
      await actor.api.call('getChat', { token: actor.access, path: { id: chat.body.id } }, 404);
      await actor.api.call('listMessages', { token: actor.access, path: { id: chat.body.id } }, 404);
      await actor.api.call('createMessage', { token: actor.access, path: { id: chat.body.id }, json: { role: 'user', content: 'Anyone?' } }, 404);
    });

    it('renames a chat, and streams a reply in sequence-numbered deltas until the runtime completes it', async () => {
      const actor = await signUp(ctx().api, 'replies');
      const agent = await actor.api.call('createAgent', { token: actor.access, json: { name: 'Writer', model: 'gpt-4o' } }, 201);
      const chat = await actor.api.call('createChat', { token: actor.access, json: { agent_id: agent.body.id } }, 201);
      const id = chat.body.id as string;
      const renamed = await actor.api.call('updateChat', { token: actor.access, path: { id }, json: { title: '  Renamed  ' } }, 200);
      expect(renamed.body).toMatchObject({ id, title: 'Renamed' });
      expect((await actor.api.call('updateChat', { token: actor.access, path: { id }, json: { title: null } }, 200)).body.title).toBeNull();
      expect((await actor.api.call('getChat', { token: actor.access, path: { id } }, 200)).body.title).toBeNull();
      // An empty title breaks the document (minLength 1): the server's refusal still must match it.
      expect((await actor.api.callInvalid('updateChat', { token: actor.access, path: { id }, json: { title: '' } }, 400)).body.code).toBe('validation_failed');

      // The agent's runtime (an API key) writes the reply piece by piece.
      const runtime = (await actor.api.call('createApiKey', { token: actor.access, json: { name: 'runtime', scopes: ['chats:read', 'chats:write'] } }, 201)).body.key as string;
      const reply = await actor.api.call('createMessage', { token: runtime, path: { id }, json: { role: 'assistant', status: 'streaming' } }, 201);
      expect(reply.body).toMatchObject({ role: 'assistant', content: '', status: 'streaming' });
      const message = { id, message_id: reply.body.id as string };
      const delta = (sequence: number, content: string, status: number) => actor.api.call('appendMessageDelta', { token: runtime, path: message, json: { sequence, content } }, status);
      expect((await delta(1, 'Hel', 200)).body).toMatchObject({ content: 'Hel', status: 'streaming' });
      expect((await delta(2, 'lo', 200)).body.content).toBe('Hello');
      // A retried delta is answered again and changes nothing; one that skips ahead is a conflict.
      expect((await delta(1, 'Hel', 200)).body.content).toBe('Hello');
      expect((await delta(4, '!', 409)).body).toMatchObject({ code: 'conflict', expected_sequence: 3 });
      // Within the document's bound per delta, over the message's bound in total.
      expect((await delta(3, 'x'.repeat(MESSAGE_MAX - 4), 422)).body.code).toBe('limit_reached');
      const listed = await actor.api.call('listMessages', { token: actor.access, path: { id } }, 200);
      expect(listed.body.data[0]).toMatchObject({ id: message.message_id, content: 'Hello', status: 'streaming' });

      const completed = await actor.api.call('completeMessage', { token: runtime, path: message }, 200);
      expect(completed.body).toMatchObject({ content: 'Hello', status: 'completed' });
      expect((await actor.api.call('completeMessage', { token: runtime, path: message }, 200)).body).toEqual(completed.body);
      expect((await delta(3, '!', 409)).body.code).toBe('conflict');
      // A reply posted whole takes no deltas.
      const whole = await actor.api.call('createMessage', { token: runtime, path: { id }, json: { role: 'assistant', content: 'Done.' } }, 201);
      expect(whole.body.status).toBe('completed');
      await actor.api.call('appendMessageDelta', { token: runtime, path: { id, message_id: whole.body.id }, json: { sequence: 1, content: 'x' } }, 409);

      // Requests the document allows and the server refuses: a user message cannot stream, a whole one needs content.
      const userStreaming = await actor.api.call('createMessage', { token: actor.access, path: { id }, json: { role: 'user', status: 'streaming' } }, 400);
      expect(userStreaming.body.errors[0].field).toBe('/status');
      const empty = await actor.api.call('createMessage', { token: runtime, path: { id }, json: { role: 'assistant' } }, 400);
      expect(empty.body.errors[0].field).toBe('/content');
      // A message that is not in this chat (or nowhere).
      const unknown = { id, message_id: newId('message') };
      expect((await actor.api.call('appendMessageDelta', { token: runtime, path: unknown, json: { sequence: 1, content: 'x' } }, 404)).body.code).toBe('not_found');
      expect((await actor.api.call('completeMessage', { token: runtime, path: unknown }, 404)).body.code).toBe('not_found');
      const elsewhere = await actor.api.call('createChat', { token: actor.access, json: { agent_id: agent.body.id } }, 201);
      await actor.api.call('completeMessage', { token: runtime, path: { id: elsewhere.body.id, message_id: message.message_id } }, 404);
    });
  });
}
