/**
 * access: what a caller may do and spend. Organizations, members, roles and invitations; API keys;
 * limits and usage; the admin API; the authenticate step that resolves every request's caller.
 * Owns the organizations, memberships, invitations, api_keys, usage and audit tables. Other
 * contexts import only this file.
 */

export { AdminOrganization, adminRoutes, AdminUser, AdminUserDetail } from './admin/admin.routes.js';
export { createAdminService } from './admin/admin.service.js';
export type { AdminService } from './admin/admin.service.js';
export { createOperator } from './admin/operator.js';
export type { Operator } from './admin/operator.js';
export { API_KEY_PREFIX } from './api-keys/api-key-format.js';
export { createApiKeyVerifier } from './api-keys/api-key-verifier.js';
export type { ApiKeyVerifierService } from './api-keys/api-key-verifier.js';
export { presentApiKey } from './api-keys/api-keys.presenter.js';
export { createApiKeysRepository } from './api-keys/api-keys.repository.js';
export { ApiKey, apiKeysRoutes, CreatedApiKey } from './api-keys/api-keys.routes.js';
export { createApiKeysService } from './api-keys/api-keys.service.js';
export type { ApiKeysService } from './api-keys/api-keys.service.js';
export { ORGANIZATION_HEADER } from './caller/acting-organization.js';
export { createAuthorizationServer, OAUTH_ROUTES } from './oauth/authorization-server.js';
export { createClientMetadataDocuments } from './oauth/client-metadata-documents.js';
export type { AuthorizationServer } from './oauth/authorization-server.js';
export { createOauthApps } from './oauth/oauth-apps.js';
export type { OauthApps } from './oauth/oauth-apps.js';
export { ConnectedApp, connectedAppsRoutes, OauthApp, oauthAppsRoutes } from './oauth/oauth-apps.routes.js';
export { createOauthConsent } from './oauth/oauth-consent.js';
export type { OauthConsent } from './oauth/oauth-consent.js';
export { createOauthGrants } from './oauth/oauth-grants.js';
export type { OauthGrants } from './oauth/oauth-grants.js';
export { oauthRegistrationRoutes } from './oauth/oauth-registration.routes.js';
export { discoveryDocuments, discoveryRoutes } from './oauth/discovery.routes.js';
export { OauthInteraction, oauthEngineRoutes, oauthInteractionRoutes } from './oauth/oauth.routes.js';
export { auditActorOf } from './caller/audit-actor.js';
export { registerAuthentication } from './caller/authenticate.js';
export type { AuthenticateDeps } from './caller/authenticate.js';
export { accountRefusal, resolveCredential, sessionCaller } from './caller/credential.js';
export { authorizationFailure } from './caller/refusals.js';
export { createCallerResolver } from './caller/resolve-caller.js';
export type { Caller, Resolution, ResolveCaller } from './caller/resolve-caller.js';
export { recordAudit } from './organizations/audit-log.js';
export type { AuditActor } from './organizations/audit-log.js';
export { createInvitationsRepository } from './organizations/invitations.repository.js';
export { createOrganizationCache } from './organizations/organization-cache.js';
export type { Membership, OrganizationCache } from './organizations/organization-cache.js';
export { lockOrganization, releaseCapacity, takeCapacity } from './organizations/organization-caps.js';
export type { Caps } from './organizations/organization-caps.js';
export { createOrganizationsRepository, newOrganizationRow } from './organizations/organizations.repository.js';
export type { OrganizationRow } from './organizations/organizations.repository.js';
export { AuditEvent, Invitation, InvitationPreview, Member, Organization, organizationsRoutes } from './organizations/organizations.routes.js';
export { createOrganizationsService } from './organizations/organizations.service.js';
export type { OrganizationsService } from './organizations/organizations.service.js';
export { createPersonalOrganization } from './organizations/personal-organization.js';
export { createUsageCounter } from './usage/usage-counter.js';
export type { UsageCounter } from './usage/usage-counter.js';
export { createUsageHistoryRepository } from './usage/usage-history.repository.js';
export { createUsageHistoryService } from './usage/usage-history.service.js';
export type { UsageHistoryService } from './usage/usage-history.service.js';
export { createUsageRetention } from './usage/usage-retention.js';
export { Usage, UsageHistory, usageRoutes } from './usage/usage.routes.js';
export { CredentialVerification, verificationRoutes } from './verification/verification.routes.js';
export { createVerificationService } from './verification/verification.service.js';
export type { VerificationService } from './verification/verification.service.js';
export { assertMayLeaveAll, leaveAllOrganizations, lockOrganizationsOf } from './organizations/leaving.js';
