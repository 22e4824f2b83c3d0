/**
 * identity: who a person is and how they prove it. Users, every way to sign in (passwords,
 * providers, passkeys), second factors, sessions and access tokens, email confirmation, the
 * security log. Owns the users, sessions, identities, passkeys, second-factor, email-token and
 * security-log tables. Other contexts import only this file.
 */

export { authRoutes } from './auth/auth.routes.js';
export { TokenResponse } from './auth/auth.schemas.js';
export { createLoginService } from './auth/login.service.js';
export type { LoginService } from './auth/login.service.js';
export { accountEmailRoutes } from './email/account-email.routes.js';
export { createAccountEmailService } from './email/account-email.service.js';
export type { AccountEmailService } from './email/account-email.service.js';
export { appLinksRoutes } from './email/app-links.routes.js';
export { createEmailTokens } from './email/email-tokens.js';
export type { EmailTokens } from './email/email-tokens.js';
export { mailLinks } from './email/mail-links.js';
export type { MailLinkTo } from './email/mail-links.js';
export { mailTemplates, MAIL_VARIABLES } from './email/mail-templates.js';
export { loadMailOverrides } from './email/mail-template-files.js';
export type { MailTemplates } from './email/mail-templates.js';
export { passwordlessRoutes } from './passwordless/passwordless.routes.js';
export { createPasswordlessService } from './passwordless/passwordless.service.js';
export type { PasswordlessService } from './passwordless/passwordless.service.js';
export { guestsRoutes } from './guests/guests.routes.js';
export { createGuests } from './guests/guests.service.js';
export type { Guests } from './guests/guests.service.js';
export { removeSecondFactor } from './mfa/factor-removal.js';
export { createMfaRepository } from './mfa/mfa.repository.js';
export { mfaRoutes } from './mfa/mfa.routes.js';
export { MfaStatus } from './mfa/mfa.schemas.js';
export { createMfaService } from './mfa/mfa.service.js';
export type { MfaService } from './mfa/mfa.service.js';
export { createPasskeysRepository } from './passkeys/passkeys.repository.js';
export { passkeysRoutes } from './passkeys/passkeys.routes.js';
export { Passkey } from './passkeys/passkeys.schemas.js';
export { createPasskeysService } from './passkeys/passkeys.service.js';
export type { PasskeysService } from './passkeys/passkeys.service.js';
export { createPasswordHasher } from './passwords/password-hasher.js';
export type { PasswordHasher } from './passwords/password-hasher.js';
export { createIdentitiesRepository } from './providers/identities.repository.js';
export { identitiesRoutes } from './providers/identities.routes.js';
export { Identity, SignInProvider } from './providers/identities.schemas.js';
export { createIdentitiesService } from './providers/identities.service.js';
export type { IdentitiesService } from './providers/identities.service.js';
export { createProviderClients } from './providers/provider-clients.js';
export { redirectUriChecker } from './providers/redirect-uris.js';
export { releaseProviderAddresses } from './providers/release-provider-addresses.js';
export { createSecurityLog } from './security-log/security-log.js';
export type { SecurityLog } from './security-log/security-log.js';
export { SecurityEvent, securityEventsPage, SecurityEventsQuery, securityLogRoutes } from './security-log/security-log.routes.js';
export { createSessionsRepository } from './sessions/sessions.repository.js';
export { Session, sessionsRoutes } from './sessions/sessions.routes.js';
export { createSessionsService } from './sessions/sessions.service.js';
export type { SessionsService } from './sessions/sessions.service.js';
export type { AccessClaims, AccessTokens, TokenResource } from './tokens/access-tokens.js';
export { accessTokenAudience, createAccessTokens, mcpAudience } from './tokens/access-tokens.js';
export { Jwks, jwksRoute } from './tokens/jwks.routes.js';
export { createKeyRing, rotateSigningKeys } from './tokens/signing-keys.js';
export type { KeyRing } from './tokens/signing-keys.js';
export { ACCOUNT_CACHE_TTL_MS, createAccountCache } from './users/account-cache.js';
export type { AccountCache } from './users/account-cache.js';
export { requireAccount } from './users/request-account.js';
export { createUsersRepository, hasPassword, normalizeEmail } from './users/users.repository.js';
export type { UserRow, UsersRepository, UserWithPlan } from './users/users.repository.js';
export { usersRoutes } from './users/users.routes.js';
export { DeleteMeBody, DeletionScheduled, EmailField, Me, NameField, User } from './users/users.schemas.js';
export { createUsersService } from './users/users.service.js';
export type { UsersService } from './users/users.service.js';
