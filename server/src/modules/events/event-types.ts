/** Every event a webhook endpoint can subscribe to (API.md §4). Public API: add, never rename. */
export const EVENT_TYPES = [
  'agent.created',
  'agent.updated',
  'agent.deleted',
  'chat.created',
  'chat.deleted',
  'chat.message.created',
  'api_key.created',
  'api_key.revoked',
  'user.updated',
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
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** A subscription pattern: an exact type, `group.*` (any depth below it), or `*`. */
export function isEventPattern(pattern: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) {
    const prefix = pattern.slice(0, -1);
    return EVENT_TYPES.some((t) => t.startsWith(prefix));
  }
  return (EVENT_TYPES as readonly string[]).includes(pattern);
}

export function patternMatches(pattern: string, type: string): boolean {
  if (pattern === '*' || pattern === type) return true;
  return pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1));
}
