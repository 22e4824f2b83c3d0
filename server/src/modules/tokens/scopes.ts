/** Every scope a credential can carry (API.md §3). Access tokens from a login carry them all. */
export const ALL_SCOPES = [
  'agents:read',
  'agents:write',
  'chats:read',
  'chats:write',
  'webhooks:read',
  'webhooks:write',
  'usage:read',
] as const;
export type Scope = (typeof ALL_SCOPES)[number];
