import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * A deleted chat's events leave the outbox with it, in the deleting transaction: otherwise its
 * messages stayed readable for the 30 days events are kept, by any reader of the organization's
 * stream replaying from an early Last-Event-ID, after REST had answered 404 for the chat. Their
 * pending webhook deliveries go too (ON DELETE CASCADE): the content they would carry is gone.
 * The `chat.deleted` event the deletion records afterwards stays; it carries only the id.
 */
export async function redactChatEvents(trx: Kysely<Database>, orgId: string, chats: { chatId: string } | { agentId: string }): Promise<void> {
  const query = trx.deleteFrom('events').where('org_id', '=', orgId);
  await ('chatId' in chats
    ? query.where('chat_id', '=', chats.chatId)
    : query.where('chat_id', 'in', trx.selectFrom('chats').select('id').where('org_id', '=', orgId).where('agent_id', '=', chats.agentId))
  ).execute();
}
