import type { AuthContext } from '../../core/credentials.js';
import { ALL_EVENT_TYPES, patternMatches, type EventType } from '../events/event-types.js';
import type { Scope } from '../../core/scopes.js';

/**
 * Which events a credential may see on the account stream: platform resources by their read
 * scope; the account's own events (keys, sessions, sign-in factors, profile) only with an access
 * token, as the routes that manage them demand (API.md §3).
 */
const READ_SCOPE: Array<[prefix: string, scope: Scope]> = [
  ['agent.', 'agents:read'],
  ['chat.', 'chats:read'],
  ['webhook.', 'webhooks:read'],
];

export function mayRead(auth: AuthContext, type: EventType): boolean {
  const rule = READ_SCOPE.find(([prefix]) => type.startsWith(prefix));
  return rule ? auth.scopes.has(rule[1]) : auth.credential === 'access_token';
}

/** The types a credential asked for (patterns) that it may read; asking for none means all it may read. */
export function visibleTypes(auth: AuthContext, patterns: string[] | undefined): Set<EventType> {
  const asked = patterns ?? ['*'];
  return new Set(ALL_EVENT_TYPES.filter((type) => mayRead(auth, type) && asked.some((p) => patternMatches(p, type))));
}

/** A chat's stream names its events without the `chat.` the account stream needs to tell them apart. */
export const CHAT_STREAM_NAMES: Partial<Record<EventType, string>> = {
  'chat.message.created': 'message.created',
  'chat.message.delta': 'message.delta',
  'chat.message.completed': 'message.completed',
  'chat.updated': 'chat.updated',
};
