import { createGatehouse, webStorageTokenStore, type Schemas } from '@gatehouse/sdk';

export type { Agent, ApiKey, Chat, CreatedApiKey, CreatedWebhookEndpoint, Me, Message, Session, StreamEvent, Usage, WebhookEndpoint } from '@gatehouse/sdk';
export type UsageHistory = Schemas['UsageHistory'];

export const SCOPES = ['agents:read', 'agents:write', 'chats:read', 'chats:write', 'webhooks:read', 'webhooks:write', 'usage:read'] as const;

/** The localStorage key of the session (dashboard/README.md explains why localStorage). */
export const TOKEN_STORAGE_KEY = 'gatehouse.dashboard.session';

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
