/**
 * Every module app.ts registers, in order, with the named schemas its routes refer to ($ref) and
 * what each takes from the dependencies. A new module is one entry here.
 */
import type { TSchema } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { Dependencies } from './dependencies.js';
import { AdminOrganization, AdminUser, AdminUserDetail, adminRoutes } from './modules/admin/admin.routes.js';
import { agentsRoutes } from './modules/agents/agents.routes.js';
import { Agent } from './modules/agents/agents.schemas.js';
import { ApiKey, apiKeysRoutes, CreatedApiKey } from './modules/api-keys/api-keys.routes.js';
import { appLinksRoutes } from './modules/app-links/app-links.routes.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { TokenResponse } from './modules/auth/auth.schemas.js';
import { chatsRoutes } from './modules/chats/chats.routes.js';
import { Chat, Message } from './modules/chats/chats.schemas.js';
import { accountEmailRoutes } from './modules/email/account-email.routes.js';
import { healthRoutes } from './modules/health/health.routes.js';
import { mfaRoutes } from './modules/mfa/mfa.routes.js';
import { MfaStatus } from './modules/mfa/mfa.schemas.js';
import { passkeysRoutes } from './modules/passkeys/passkeys.routes.js';
import { Passkey } from './modules/passkeys/passkeys.schemas.js';
import { identitiesRoutes } from './modules/identities/identities.routes.js';
import { Identity, SignInProvider } from './modules/identities/identities.schemas.js';
import { Jwks, jwksRoute } from './modules/jwks/jwks.routes.js';
import { openIdConfigurationRoute } from './modules/jwks/openid-configuration.routes.js';
import { USER_SCOPES } from './core/scopes.js';
import { CredentialVerification, verificationRoutes } from './modules/verification/verification.routes.js';
import { SecurityEvent, securityLogRoutes } from './modules/security-log/security-log.routes.js';
import { Session, sessionsRoutes } from './modules/sessions/sessions.routes.js';
import { Usage, UsageHistory, usageRoutes } from './modules/usage/usage.routes.js';
import { usersRoutes } from './modules/users/users.routes.js';
import { Me, User } from './modules/users/users.schemas.js';
import { AccountExport } from './modules/accounts/account-export.schemas.js';
import { CreatedWebhookEndpoint, WebhookDelivery, WebhookEndpoint } from './modules/webhooks/webhooks.schemas.js';
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.js';
import { streamsRoutes } from './modules/streams/streams.routes.js';
import { AuditEvent, Invitation, Member, Organization, organizationsRoutes } from './modules/organizations/organizations.routes.js';

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
    credentials: { accessTokens: d.accessTokens, revocations: d.revocations, apiKeys: d.apiKeyVerifier, accounts: d.accounts },
  }) },
  { name: 'users', schemas: [Me, AccountExport], register: (v1, d) => v1.register(usersRoutes, { users: d.users, securityLog: d.securityLog, accountEmail: d.accountEmail, accountDeletion: d.accountDeletion, accountExport: d.accountExport }) },
  { name: 'mfa', schemas: [MfaStatus], register: (v1, d) => v1.register(mfaRoutes, { mfa: d.mfa }) },
  { name: 'passkeys', schemas: [Passkey], register: (v1, d) => v1.register(passkeysRoutes, { passkeys: d.passkeys }) },
  { name: 'identities', schemas: [SignInProvider, Identity], register: (v1, d) => v1.register(identitiesRoutes, { identities: d.identities }) },
  { name: 'security-log', schemas: [SecurityEvent], register: (v1, d) => v1.register(securityLogRoutes, { securityLog: d.securityLog }) },
  { name: 'sessions', schemas: [Session], register: (v1, d) => v1.register(sessionsRoutes, { sessions: d.sessions, securityLog: d.securityLog }) },
  { name: 'api-keys', schemas: [ApiKey, CreatedApiKey], register: (v1, d) => v1.register(apiKeysRoutes, { apiKeys: d.apiKeys, securityLog: d.securityLog, clock: d.clock }) },
  { name: 'organizations', schemas: [Organization, Member, Invitation, AuditEvent], register: (v1, d) => v1.register(organizationsRoutes, { organizations: d.organizations, clock: d.clock }) },
  { name: 'usage', schemas: [Usage, UsageHistory], register: (v1, d) => v1.register(usageRoutes, { limiter: d.limiter, history: d.usageHistory }) },
  { name: 'verification', schemas: [CredentialVerification], register: (v1, d) => v1.register(verificationRoutes, { verification: d.verification }) },
  { name: 'admin', schemas: [AdminUser, AdminUserDetail, AdminOrganization], register: (v1, d) => v1.register(adminRoutes, { admin: d.admin, securityLog: d.securityLog }) },
  { name: 'agents', schemas: [Agent], register: (v1, d) => v1.register(agentsRoutes, { agents: d.agents }) },
  { name: 'chats', schemas: [Chat, Message], register: (v1, d) => v1.register(chatsRoutes, { chats: d.chats }) },
  { name: 'streams', register: (v1, d) => v1.register(streamsRoutes, {
    streams: d.streams.service, registry: d.streams.registry, chats: d.chats,
    credentials: { accessTokens: d.accessTokens, revocations: d.revocations, apiKeys: d.apiKeyVerifier, accounts: d.accounts, organizations: d.organizationCache },
  }) },
  { name: 'webhooks', schemas: [WebhookEndpoint, CreatedWebhookEndpoint, WebhookDelivery], register: (v1, d) => v1.register(webhooksRoutes, { webhooks: d.webhooks.service }) },
  { name: 'jwks', schemas: [Jwks], register: (v1, d) => v1.register(jwksRoute(d.keyRing, { hide: false })) },
];

/** Outside /v1: the JWKS at its well-known path too, OpenID discovery, mobile app links, health and metrics. */
export const ROOT_MODULES: AppModule[] = [
  { name: 'jwks (root)', register: (app, d) => app.register(jwksRoute(d.keyRing, { hide: true })) },
  { name: 'openid-configuration', register: (app, d) => app.register(openIdConfigurationRoute(d.config.publicUrl, USER_SCOPES)) },
  { name: 'app-links', register: (app, d) => app.register(appLinksRoutes(d.config)) },
  { name: 'health', register: (app, d) => app.register(healthRoutes({ checks: d.readiness, metrics: d.metrics, metricsToken: d.config.metrics.token })) },
];
