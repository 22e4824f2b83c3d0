import type { AuthContext } from '../../kernel/access-terms/credentials.js';
import { ALL_EVENT_TYPES, patternMatches, type EventType } from '../../kernel/events/event-types.js';
import type { Scope } from '../../kernel/access-terms/scopes.js';

/**
 * Which events a credential may see on the organization's event stream: platform resources by
 * their read scope; a person's account events (keys, sessions, sign-in factors, profile) only with
 * an access token, as the routes that manage them demand.
 */
const READ_SCOPE: Array<[prefix: string, scope: Scope]> = [
  ['agent.', 'agents:read'],
  ['chat.', 'chats:read'],
  ['webhook.', 'webhooks:read'],
];

/** Events about one person's account (recorded for their user, into their personal organization). */
const ACCOUNT_PREFIXES = ['user.', 'session.', 'security.'];
export const isAccountEvent = (type: EventType): boolean => ACCOUNT_PREFIXES.some((prefix) => type.startsWith(prefix));

/**
 * Who reads: the credential, and whether the organization streamed is the reader's own personal
 * one. Account events (their address, their sessions) are that person's alone: another member
 * of their personal organization (one who joined while it took members) never sees them.
 */
export interface Reader {
  auth: AuthContext;
  ownAccount: boolean;
}

export function mayRead(reader: Reader, type: EventType): boolean {
  const rule = READ_SCOPE.find(([prefix]) => type.startsWith(prefix));
  if (rule) return reader.auth.scopes.has(rule[1]);
  return reader.auth.credential === 'access_token' && (reader.ownAccount || !isAccountEvent(type));
}

/** The types a reader asked for (patterns) that it may read; asking for none means all it may read. */
export function visibleTypes(reader: Reader, patterns: string[] | undefined): Set<EventType> {
  const asked = patterns ?? ['*'];
  return new Set(ALL_EVENT_TYPES.filter((type) => mayRead(reader, type) && asked.some((p) => patternMatches(p, type))));
}

/** A chat's stream names its events without the `chat.` the organization's event stream needs to tell them apart. */
export const CHAT_STREAM_NAMES: Partial<Record<EventType, string>> = {
  'chat.message.created': 'message.created',
  'chat.message.delta': 'message.delta',
  'chat.message.completed': 'message.completed',
  'chat.updated': 'chat.updated',
};
