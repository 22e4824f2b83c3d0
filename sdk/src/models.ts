/** Friendly names for the generated schemas, so apps need not spell components['schemas'][…]. */
import type { Schemas } from './operations.js';

export type Problem = Schemas['Problem'];
export type User = Schemas['User'];
export type Me = Schemas['Me'];
export type TokenResponse = Schemas['TokenResponse'];
export type Jwks = Schemas['Jwks'];
export type Session = Schemas['Session'];
export type ApiKey = Schemas['ApiKey'];
export type CreatedApiKey = Schemas['CreatedApiKey'];
export type Organization = Schemas['Organization'];
/** viewer < member < admin < owner. */
export type OrganizationRole = Schemas['Organization']['role'];
export type Member = Schemas['Member'];
export type Invitation = Schemas['Invitation'];
export type AuditEvent = Schemas['AuditEvent'];
export type Usage = Schemas['Usage'];
export type AdminUser = Schemas['AdminUser'];
export type Agent = Schemas['Agent'];
export type Chat = Schemas['Chat'];
export type Message = Schemas['Message'];
export type SecurityEvent = Schemas['SecurityEvent'];
/** me.export(): everything the account holds. */
export type AccountExport = Schemas['AccountExport'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type CreatedWebhookEndpoint = Schemas['CreatedWebhookEndpoint'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
/** An organization's OAuth app (Settings → OAuth apps). */
export type OauthApp = Schemas['OauthApp'];
/** An app a person allowed to act for them (Settings → Connected apps). */
export type ConnectedApp = Schemas['ConnectedApp'];
/** What an app asks a person to allow (the consent page). */
export type OauthInteraction = Schemas['OauthInteraction'];
