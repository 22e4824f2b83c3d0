import { randomBytes } from 'node:crypto';
import { newId, type IdKind } from '../../../src/kernel/ids.js';
import type { SpecOperation } from '../spec.js';
import { OIDC_PROVIDER } from '../stack.js';

/**
 * What each protected operation requires. The document only says "bearerAuth", so the
 * table is the test's own statement of the contract; the sweeps check it covers exactly the
 * protected operations of the document, so a new route has to be added here.
 */
export type Requirement = 'session' | 'admin' | 'any' | `${'agents' | 'chats' | 'webhooks'}:${'read' | 'write'}` | 'usage:read' | 'credentials:verify';

export const REQUIREMENTS: Record<string, Requirement> = {
  logout: 'session',
  resendVerification: 'session',
  getMe: 'session',
  updateMe: 'session',
  deleteMe: 'session',
  changeEmail: 'session',
  upgradeGuest: 'session',
  exportMe: 'session',
  changePassword: 'session',
  listSecurityEvents: 'session',
  getMfa: 'session',
  enrolTotp: 'session',
  confirmTotp: 'session',
  disableTotp: 'session',
  regenerateRecoveryCodes: 'session',
  stepUp: 'session',
  passkeyRegistrationOptions: 'session',
  addPasskey: 'session',
  listPasskeys: 'session',
  renamePasskey: 'session',
  removePasskey: 'session',
  listIdentities: 'session',
  linkIdentity: 'session',
  unlinkIdentity: 'session',
  listSessions: 'session',
  revokeSession: 'session',
  createApiKey: 'session',
  listApiKeys: 'session',
  getApiKey: 'session',
  updateApiKey: 'session',
  rollApiKey: 'session',
  revokeApiKey: 'session',
  // A service key's: an access token never carries the scope (context.ts serviceKey()).
  verifyCredential: 'credentials:verify',
  getUsage: 'usage:read',
  getUsageHistory: 'usage:read',
  adminListUsers: 'admin',
  adminGetUser: 'admin',
  adminListUserSecurityEvents: 'admin',
  adminUpdateUser: 'admin',
  adminGetOrganization: 'admin',
  adminUpdateOrganization: 'admin',
  // Organizations (issue 21): access tokens only, like the rest of account management; the role in
  // the organization is the service's own check (403 insufficient_role, journeys/organizations.ts).
  createOrganization: 'session',
  listOrganizations: 'session',
  getOrganization: 'session',
  updateOrganization: 'session',
  deleteOrganization: 'session',
  listOrganizationAuditLog: 'session',
  listOrganizationMembers: 'session',
  updateOrganizationMember: 'session',
  removeOrganizationMember: 'session',
  createOrganizationInvitation: 'session',
  listOrganizationInvitations: 'session',
  revokeOrganizationInvitation: 'session',
  acceptInvitation: 'session',
  createAgent: 'agents:write',
  listAgents: 'agents:read',
  getAgent: 'agents:read',
  updateAgent: 'agents:write',
  deleteAgent: 'agents:write',
  createChat: 'chats:write',
  listChats: 'chats:read',
  getChat: 'chats:read',
  updateChat: 'chats:write',
  deleteChat: 'chats:write',
  createMessage: 'chats:write',
  appendMessageDelta: 'chats:write',
  completeMessage: 'chats:write',
  listMessages: 'chats:read',
  streamChat: 'chats:read',
  // Any credential may open the account's stream: it shows the events that credential may read.
  // So no sweep can get a 403 out of it without `types` beyond its reach (journeys/streams.ts),
  // and a credential without scopes is *admitted*, to an endless stream (credentials.ts skips it).
  streamEvents: 'any',
  createWebhook: 'webhooks:write',
  listWebhooks: 'webhooks:read',
  getWebhook: 'webhooks:read',
  updateWebhook: 'webhooks:write',
  deleteWebhook: 'webhooks:write',
  testWebhook: 'webhooks:write',
  listWebhookDeliveries: 'webhooks:read',
  redeliverWebhookDelivery: 'webhooks:write',
  redeliverFailedWebhookDeliveries: 'webhooks:write',
  rotateWebhookSecret: 'webhooks:write',
  // OAuth (access tokens only): an organization's apps, a person's grants and consent.
  createOauthApp: 'session',
  listOauthApps: 'session',
  deleteOauthApp: 'session',
  rotateOauthAppSecret: 'session',
  listConnectedApps: 'session',
  revokeConnectedApp: 'session',
  getOauthInteraction: 'session',
  decideOauthInteraction: 'session',
  continueOauthInteraction: 'session',
};

/**
 * The operations that manage one's own account: they spend nothing from the account's budget and
 * are never refused by it (an owner must be able to stop a runaway key). Every other protected
 * operation spends from it.
 */
export const BUDGET_EXEMPT = new Set([
  'logout', 'resendVerification', 'getMe', 'updateMe', 'deleteMe', 'changeEmail', 'upgradeGuest', 'exportMe', 'changePassword', 'listSecurityEvents',
  'listSessions', 'revokeSession', 'createApiKey', 'listApiKeys', 'getApiKey', 'updateApiKey', 'rollApiKey', 'revokeApiKey', 'getUsage', 'getUsageHistory',
  'adminListUsers', 'adminUpdateUser', 'getMfa', 'enrolTotp', 'confirmTotp', 'disableTotp', 'regenerateRecoveryCodes', 'stepUp',
  'passkeyRegistrationOptions', 'addPasskey', 'listPasskeys', 'renamePasskey', 'removePasskey',
  'listIdentities', 'linkIdentity', 'unlinkIdentity',
  // A team whose budget a runaway key burned can still remove that member and their keys.
  'createOrganization', 'listOrganizations', 'getOrganization', 'updateOrganization', 'deleteOrganization', 'listOrganizationAuditLog',
  'listOrganizationMembers', 'updateOrganizationMember', 'removeOrganizationMember',
  'createOrganizationInvitation', 'listOrganizationInvitations', 'revokeOrganizationInvitation', 'acceptInvitation',
  'adminGetOrganization', 'adminUpdateOrganization', 'adminGetUser', 'adminListUserSecurityEvents',
  'createOauthApp', 'listOauthApps', 'deleteOauthApp', 'rotateOauthAppSecret', 'listConnectedApps', 'revokeConnectedApp', 'getOauthInteraction', 'decideOauthInteraction', 'continueOauthInteraction',
]);

/**
 * The operations that act for the organization a token's Gatehouse-Organization header names
 * (docs/guides/teams.md): every operation with a scope (or 'any'), and of the account's own the profile
 * (it names that organization) and the API keys (they belong to one). They answer a malformed
 * header 400 invalid_request and an organization the caller is not in 403 not_a_member; the other
 * account and admin operations ignore the header (the organization routes take theirs from the path).
 */
export const ORGANIZATION_SCOPED = new Set([
  ...Object.entries(REQUIREMENTS).filter(([, requirement]) => requirement !== 'session' && requirement !== 'admin').map(([operationId]) => operationId),
  'getMe', 'updateMe', 'createApiKey', 'listApiKeys', 'getApiKey', 'updateApiKey', 'rollApiKey', 'revokeApiKey',
  'createOauthApp', 'listOauthApps', 'deleteOauthApp', 'rotateOauthAppSecret',
]);

/**
 * Operations that spend nothing of their caller's, and have no limit of their own: a service key
 * verifying credentials spends from the credentials it verifies. They document no 429.
 */
export const CALLER_FREE = new Set(['verifyCredential']);

/**
 * Which id kind a path's {id} is, from the collection it sits in. The other path parameters name
 * their kind (`{message_id}` a message, `{user_id}` a member's account, `{invitation_id}` an invitation, `{delivery_id}` a webhook delivery).
 */
const ID_KINDS: [RegExp, IdKind][] = [
  [/^\/v1\/sessions\//, 'session'],
  [/^\/v1\/users\/me\/passkeys\//, 'passkey'],
  [/^\/v1\/users\/me\/identities\//, 'identity'],
  [/^\/v1\/api-keys\//, 'apiKey'],
  [/^\/v1\/admin\/users\//, 'user'],
  [/^\/v1\/admin\/organizations\//, 'organization'],
  [/^\/v1\/organizations\//, 'organization'],
  [/^\/v1\/agents\//, 'agent'],
  [/^\/v1\/chats\//, 'chat'],
  [/^\/v1\/webhooks\//, 'webhook'],
  [/^\/v1\/oauth-apps\//, 'oauthApp'],
];

/**
 * A value for every path parameter: a well-formed id of the right kind that names nothing (fresh),
 * and for a provider sign-in's `{provider}` the configured one (its checks come after the path's).
 */
export function unknownIds(op: SpecOperation): Record<string, string> {
  if (op.path.includes('{provider}')) return { provider: OIDC_PROVIDER };
  // An interaction and a grant are the engine's random strings, not Gatehouse ids.
  if (op.path.includes('{uid}')) return { uid: randomBytes(21).toString('base64url') };
  if (op.path.startsWith('/v1/users/me/connected-apps/')) return { id: randomBytes(21).toString('base64url') };
  if (!op.path.includes('{id}')) return {};
  const kind = ID_KINDS.find(([pattern]) => pattern.test(op.path))?.[1];
  if (!kind) throw new Error(`${op.operationId}: no id kind for ${op.path}; add it to ID_KINDS`);
  return {
    id: newId(kind),
    ...(op.path.includes('{message_id}') ? { message_id: newId('message') } : {}),
    ...(op.path.includes('{user_id}') ? { user_id: newId('user') } : {}),
    ...(op.path.includes('{invitation_id}') ? { invitation_id: newId('invitation') } : {}),
    ...(op.path.includes('{delivery_id}') ? { delivery_id: newId('delivery') } : {}),
  };
}

/** A body the document and the server accept, for operations that need one to get past validation. */
export const VALID_BODIES: Record<string, unknown> = {
  updateAgent: { name: 'Renamed' },
  renamePasskey: { name: 'Renamed' },
  updateWebhook: { description: 'Renamed' },
  createMessage: { role: 'user', content: 'Hello' },
  updateChat: { title: 'Renamed' },
  appendMessageDelta: { sequence: 1, content: 'more' },
  adminUpdateUser: { tier: 'hobby' },
  adminUpdateOrganization: { tier: 'hobby' },
  updateOrganization: { name: 'Renamed' },
  updateOrganizationMember: { role: 'viewer' },
  createOrganizationInvitation: { email: 'nobody@example.com', role: 'viewer' },
  updateApiKey: { name: 'Renamed' },
  rollApiKey: {},
  // Within the events kept (30 days), not in the future: the server checks both before the id.
  redeliverFailedWebhookDeliveries: { since: new Date(Date.now() - 3600_000).toISOString() },
  rotateWebhookSecret: {},
};

/**
 * Live streams (streamChat, streamEvents): a request they admit is an endless `text/event-stream`,
 * which Prism answers only when the server ends it (contract-client.ts). Every sweep sends them
 * only requests refused before the stream opens (no or a bad credential, a missing scope, a spent
 * budget, a bad or unknown id); their 200s, 400s, 403s and the 429 too_many_streams are driven in
 * journeys/streams.ts, where the test ends each stream it opens.
 */
export function streaming(ops: Iterable<SpecOperation>): SpecOperation[] {
  return [...ops].filter((op) => op.streams);
}

export function secured(ops: Iterable<SpecOperation>): SpecOperation[] {
  return [...ops].filter((op) => op.secured);
}
