/** Every event a webhook endpoint can subscribe to. Public API: add, never rename. */
export const EVENT_TYPES = [
  'agent.created',
  'agent.updated',
  'agent.deleted',
  'chat.created',
  'chat.updated',
  'chat.deleted',
  'chat.message.created',
  'chat.message.completed',
  'api_key.created',
  'api_key.updated',
  'api_key.rolled',
  'api_key.revoked',
  'user.updated',
  'user.email.changed',
  'user.mfa.enabled',
  'user.mfa.disabled',
  'user.mfa.recovery_codes_regenerated',
  'user.mfa.recovery_code_used',
  'user.passkey.added',
  'user.passkey.removed',
  'user.identity.linked',
  'user.identity.unlinked',
  'session.revoked',
  'security.refresh_token_reused',
  'webhook.test',
  'organization.member.added',
  'organization.member.updated',
  'organization.member.removed',
  'oauth.grant.created',
  'oauth.grant.revoked',
] as const;
export type WebhookEventType = (typeof EVENT_TYPES)[number];

/**
 * Events only live streams carry: one per piece of a streaming reply is far too many to deliver
 * by webhook, and `chat.message.completed` tells a webhook receiver the outcome.
 */
export const STREAM_ONLY_EVENT_TYPES = ['chat.message.delta'] as const;
export type EventType = WebhookEventType | (typeof STREAM_ONLY_EVENT_TYPES)[number];
export const ALL_EVENT_TYPES: readonly EventType[] = [...EVENT_TYPES, ...STREAM_ONLY_EVENT_TYPES];

export function isWebhookEventType(type: EventType): type is WebhookEventType {
  return (EVENT_TYPES as readonly string[]).includes(type);
}

/** A subscription pattern over `types`: an exact type, `group.*` (any depth below it), or `*`. */
export function isEventPattern(pattern: string, types: readonly string[] = EVENT_TYPES): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) {
    const prefix = pattern.slice(0, -1);
    return types.some((t) => t.startsWith(prefix));
  }
  return types.includes(pattern);
}

export function patternMatches(pattern: string, type: string): boolean {
  if (pattern === '*' || pattern === type) return true;
  return pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1));
}
