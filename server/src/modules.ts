/**
 * Every module app.ts registers, in order, with the named schemas its routes refer to ($ref) and
 * what each takes from the dependencies. A new module is one entry here.
 */
import { oauthRegistrationRoutes, ConnectedApp, OauthApp, connectedAppsRoutes, oauthAppsRoutes, OauthInteraction, oauthEngineRoutes, oauthInteractionRoutes, discoveryDocuments, discoveryRoutes, AdminOrganization, AdminUser, AdminUserDetail, ApiKey, AuditEvent, CreatedApiKey, CredentialVerification, Invitation, InvitationPreview, Member, Organization, Usage, UsageHistory, adminRoutes, apiKeysRoutes, organizationsRoutes, sessionCaller, usageRoutes, verificationRoutes } from './access/index.js';
import type { TSchema } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { Dependencies } from './dependencies.js';
import { Agent, Chat, CreatedWebhookEndpoint, MCP_TOOLS, Message, WebhookDelivery, WebhookEndpoint, agentsRoutes, chatsRoutes, mcpRoutes, protectedResourceRoute, streamsRoutes, webhooksRoutes } from './platform/index.js';
import { mcpAudience, Identity, Jwks, Me, MfaStatus, Passkey, SecurityEvent, Session, SignInProvider, TokenResponse, User, accountEmailRoutes, appLinksRoutes, authRoutes, identitiesRoutes, jwksRoute, guestsRoutes, mfaRoutes, passkeysRoutes, passwordlessRoutes, securityLogRoutes, sessionsRoutes, usersRoutes } from './identity/index.js';
import { healthRoutes } from './http/health.routes.js';
import { USER_SCOPES } from './kernel/access-terms/scopes.js';
import { AccountExportSchema, accountFlowRoutes } from './flows/index.js';

/** The dependencies, and what app.ts itself made for this app (its metrics registry). */
export type ModuleDeps = Dependencies & { metrics: Registry };

export interface AppModule {
  name: string;
  /** Named schemas, added at the root so every route gets the project's validator for them. */
  schemas?: TSchema[];
  register(app: FastifyInstance, deps: ModuleDeps): PromiseLike<unknown>;
}

/** Under /v1, in the order the OpenAPI document lists them. */
export const V1_MODULES: AppModule[] = [
  { name: 'auth', schemas: [User, TokenResponse], register: (v1, d) => v1.register(authRoutes, { users: d.users, login: d.login, sessions: d.sessions, accountEmail: d.accountEmail, securityLog: d.securityLog }) },
  { name: 'email', register: (v1, d) => v1.register(accountEmailRoutes, {
    accountEmail: d.accountEmail,
    users: d.users,
    sessionOf: (authorization, missing) => sessionCaller({ accessTokens: d.accessTokens, revocations: d.revocations, apiKeys: d.apiKeyVerifier, accounts: d.accounts }, authorization, missing),
  }) },
  { name: 'users', schemas: [Me, AccountExportSchema], register: (v1, d) => v1.register(usersRoutes, { users: d.users, securityLog: d.securityLog, notifyPasswordChanged: (user) => d.accountEmail.notifyPasswordChanged(user) }) },
  { name: 'account-flows', register: (v1, d) => v1.register(accountFlowRoutes, { accountDeletion: d.accountDeletion, accountExport: d.accountExport }) },
  { name: 'mfa', schemas: [MfaStatus], register: (v1, d) => v1.register(mfaRoutes, { mfa: d.mfa }) },
  { name: 'passkeys', schemas: [Passkey], register: (v1, d) => v1.register(passkeysRoutes, { passkeys: d.passkeys }) },
  { name: 'guests', schemas: [], register: (v1, d) => v1.register(guestsRoutes, { guests: d.guests }) },
  { name: 'passwordless', schemas: [], register: (v1, d) => v1.register(passwordlessRoutes, { passwordless: d.passwordless }) },
  { name: 'identities', schemas: [SignInProvider, Identity], register: (v1, d) => v1.register(identitiesRoutes, {
    identities: d.identities,
    sessionOf: (authorization, missing) => sessionCaller({ accessTokens: d.accessTokens, revocations: d.revocations, apiKeys: d.apiKeyVerifier, accounts: d.accounts }, authorization, missing),
  }) },
  { name: 'security-log', schemas: [SecurityEvent], register: (v1, d) => v1.register(securityLogRoutes, { securityLog: d.securityLog }) },
  { name: 'sessions', schemas: [Session], register: (v1, d) => v1.register(sessionsRoutes, { sessions: d.sessions, securityLog: d.securityLog }) },
  { name: 'api-keys', schemas: [ApiKey, CreatedApiKey], register: (v1, d) => v1.register(apiKeysRoutes, { apiKeys: d.apiKeys, securityLog: d.securityLog, clock: d.clock }) },
  { name: 'organizations', schemas: [Organization, Member, Invitation, InvitationPreview, AuditEvent], register: (v1, d) => v1.register(organizationsRoutes, { organizations: d.organizations, clock: d.clock }) },
  { name: 'oauth-apps', schemas: [OauthApp, ConnectedApp], register: async (v1, d) => {
    await v1.register(oauthAppsRoutes, { apps: d.oauth.apps });
    await v1.register(connectedAppsRoutes, { grants: d.oauth.grants });
  } },
  { name: 'usage', schemas: [Usage, UsageHistory], register: (v1, d) => v1.register(usageRoutes, { limiter: d.limiter, history: d.usageHistory }) },
  { name: 'verification', schemas: [CredentialVerification], register: (v1, d) => v1.register(verificationRoutes, { verification: d.verification }) },
  { name: 'admin', schemas: [AdminUser, AdminUserDetail, AdminOrganization], register: (v1, d) => v1.register(adminRoutes, { admin: d.admin, securityLog: d.securityLog }) },
  { name: 'agents', schemas: [Agent], register: (v1, d) => v1.register(agentsRoutes, { agents: d.agents }) },
  { name: 'chats', schemas: [Chat, Message], register: (v1, d) => v1.register(chatsRoutes, { chats: d.chats }) },
  { name: 'streams', register: (v1, d) => v1.register(streamsRoutes, {
    streams: d.streams.service, registry: d.streams.registry, chats: d.chats,
    credentials: { accessTokens: d.accessTokens, revocations: d.revocations, apiKeys: d.apiKeyVerifier, accounts: d.accounts, organizations: d.organizationCache },
  }) },
  { name: 'mcp', register: (v1, d) => v1.register(mcpRoutes, { handle: d.mcp, endpoint: mcpAudience(d.config.publicUrl) }) },
  { name: 'webhooks', schemas: [WebhookEndpoint, CreatedWebhookEndpoint, WebhookDelivery], register: (v1, d) => v1.register(webhooksRoutes, { webhooks: d.webhooks.service }) },
  { name: 'jwks', schemas: [Jwks], register: (v1, d) => v1.register(jwksRoute(d.keyRing, { hide: false })) },
];

/** Outside /v1: the JWKS at its well-known path too, the authorization server (its endpoints, discovery, registration), the MCP endpoint's metadata, mobile app links, health and metrics. */
export const ROOT_MODULES: AppModule[] = [
  { name: 'jwks (root)', register: (app, d) => app.register(jwksRoute(d.keyRing, { hide: true })) },
  { name: 'oauth', schemas: [OauthInteraction], register: async (app, d) => {
    await app.register(oauthEngineRoutes(d.oauth.server));
    await app.register(oauthInteractionRoutes, { consent: d.oauth.consent });
    await app.register(discoveryRoutes(discoveryDocuments(d.oauth.server, d.config.publicUrl, USER_SCOPES, { dynamicRegistration: d.config.oauthDynamicClientRegistration })));
    if (d.config.oauthDynamicClientRegistration) await app.register(oauthRegistrationRoutes, { apps: d.oauth.apps, now: () => d.clock.now() });
  } },
  { name: 'mcp-resource-metadata', register: (app, d) => app.register(protectedResourceRoute({
    resource: mcpAudience(d.config.publicUrl), authorizationServer: d.config.publicUrl, scopes: [...new Set(MCP_TOOLS.map((tool) => tool.scope))],
  })) },
  { name: 'app-links', register: (app, d) => app.register(appLinksRoutes(d.config)) },
  { name: 'health', register: (app, d) => app.register(healthRoutes({ checks: d.readiness, metrics: d.metrics, metricsToken: d.config.metrics.token })) },
];
