import type { Kysely } from 'kysely';
import { isoTime, type Clock } from '../clock.js';
import type { Database } from '../db/schema.js';
import { newId } from '../ids.js';
import { preparedQuery } from '../db/prepared-queries.js';
import { isWebhookEventType, patternMatches, type EventType } from './event-types.js';

export interface EventEnvelope {
  id: string;
  type: EventType;
  created_at: string;
  data: unknown;
}

export interface RecordedEvent {
  event: EventEnvelope;
  orgId: string;
  /** Pending deliveries written with it: the delivery worker is woken after the commit only when > 0. */
  deliveries: number;
}

// No number yet (`seq` null): live streams number an organization's events in the order they see them
// committed (event-sequencer.ts), so a write takes no lock beyond its own rows.
const insertEvent = preparedQuery((q, $: { id: string; orgId: string; type: string; data: string; createdAt: string; chatId: string | null }) =>
  q.insertInto('events').values({ id: $.id, org_id: $.orgId, type: $.type, data: $.data, created_at: $.createdAt, chat_id: $.chatId }));
const enabledEndpoints = preparedQuery((q, $: { orgId: string }) =>
  q.selectFrom('webhook_endpoints').select(['id', 'events']).where('org_id', '=', $.orgId).where('enabled', '=', 1));
const enabledEndpoint = preparedQuery((q, $: { orgId: string; id: string }) =>
  q.selectFrom('webhook_endpoints').select(['id', 'events']).where('org_id', '=', $.orgId).where('enabled', '=', 1).where('id', '=', $.id));

const personalOrganization = preparedQuery((q, $: { userId: string }) => q.selectFrom('users').select('personal_org_id').where('id', '=', $.userId));

/**
 * Where an event goes: an organization's, or about a user's own account (`userId`), which their
 * personal organization hears of. Every endpoint there gets it: only the person can have made one,
 * as a personal organization takes no members (migration 0018 disabled those others made before).
 */
export type EventOwner = { orgId: string } | { userId: string };

/**
 * The transactional outbox: called with the transaction that makes the change, it writes the
 * event and one pending delivery per matching enabled endpoint. Either all of it commits with the
 * change or none of it does, so a crash can neither lose an event nor invent one. After the
 * commit, hand what it returns to the event signal (event-signal.ts).
 */
export async function recordEvent(
  trx: Kysely<Database>,
  clock: Clock,
  owned: EventOwner & { type: EventType; data: unknown; chatId?: string; onlyEndpointId?: string },
): Promise<RecordedEvent> {
  const orgId = 'orgId' in owned ? owned.orgId : (await personalOrganization.first({ userId: owned.userId }, trx))?.personal_org_id;
  if (orgId === undefined) throw new Error(`recordEvent: no user ${'userId' in owned ? owned.userId : ''}`);
  const input = { ...owned, orgId };
  const now = isoTime(clock.now());
  const event: EventEnvelope = { id: newId('event'), type: input.type, created_at: now, data: input.data };
  const endpoints = !isWebhookEventType(input.type)
    ? []
    : input.onlyEndpointId
      ? await enabledEndpoint.all({ orgId: input.orgId, id: input.onlyEndpointId }, trx)
      : await enabledEndpoints.all({ orgId: input.orgId }, trx);
  const targets = input.onlyEndpointId ? endpoints : endpoints.filter((e) => e.events.split(' ').some((p) => patternMatches(p, event.type)));
  await insertEvent.run({ id: event.id, orgId: input.orgId, type: event.type, data: JSON.stringify(event.data), createdAt: now, chatId: input.chatId ?? null }, trx);
  if (targets.length > 0) {
    await trx
      .insertInto('deliveries')
      .values(targets.map((e) => ({
        id: newId('delivery'), event_id: event.id, endpoint_id: e.id, org_id: input.orgId, status: 'pending', attempts: 0,
        next_attempt_at: now, locked_until: null, last_status_code: null, last_error: null, created_at: now, updated_at: now,
      })))
      .execute();
  }
  return { event, orgId: input.orgId, deliveries: targets.length };
}
