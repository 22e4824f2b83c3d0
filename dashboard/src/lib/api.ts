import { createGatehouse, webStorageTokenStore, type Schemas } from '@gatehouse/sdk';
import { TOKEN_STORAGE_KEY } from './session-key.ts';

export type { Agent, ApiKey, ConnectedApp, OauthApp, OauthInteraction, AuditEvent, Chat, CreatedApiKey, CreatedWebhookEndpoint, Invitation, Me, Member, Message, Organization, OrganizationRole, SecurityEvent, Session, StreamEvent, Usage, WebhookDelivery, WebhookEndpoint } from '@gatehouse/sdk';
export type UsageHistory = Schemas['UsageHistory'];

/** Weakest first; each role can do what the ones before it can. */
export const ROLES = ['viewer', 'member', 'admin', 'owner'] as const;
export const ROLE_HINTS: Record<(typeof ROLES)[number], string> = {
  viewer: 'reads agents and chats',
  member: 'also creates and uses agents and chats',
  admin: 'also manages members, API keys and webhooks',
  owner: 'also deletes the organization and makes owners',
};
export const atLeast = (role: string | undefined, least: (typeof ROLES)[number]) => role !== undefined && ROLES.indexOf(role as (typeof ROLES)[number]) >= ROLES.indexOf(least);

export const SCOPES = ['agents:read', 'agents:write', 'chats:read', 'chats:write', 'webhooks:read', 'webhooks:write', 'usage:read'] as const;

/** Each scope in words, as a person deciding whether to allow an app reads it. */
export const SCOPE_WORDS: Record<string, string> = {
  'agents:read': 'See your agents',
  'agents:write': 'Create, change and delete agents',
  'chats:read': 'Read your chats and their messages',
  'chats:write': 'Start chats and post messages',
  'webhooks:read': 'See your webhook endpoints and deliveries',
  'webhooks:write': 'Add, change and remove webhook endpoints',
  'usage:read': 'See your request usage',
};
export const scopeInWords = (scope: string) => SCOPE_WORDS[scope] ?? scope;

export { TOKEN_STORAGE_KEY };

type SessionListener = (signedIn: boolean) => void;
const sessionListeners = new Set<SessionListener>();

/** Told after every login and refresh (true) and when the session ends, for whatever reason (false). */
export function onSessionChange(listener: SessionListener): () => void {
  sessionListeners.add(listener);
  return () => void sessionListeners.delete(listener);
}

/** The one client of the whole dashboard: same origin, the session in localStorage. */
export const gatehouse = createGatehouse({
  baseUrl: window.location.origin,
  tokenStore: webStorageTokenStore(window.localStorage, TOKEN_STORAGE_KEY),
  onSessionChange: (session) => sessionListeners.forEach((listener) => listener(session !== null)),
});
