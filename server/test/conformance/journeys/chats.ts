import { describe, expect, it } from 'vitest';
import { signUp, type GetContext } from '../context.js';

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
  });
}
