import { Type } from 'typebox';
import { StringEnum, Timestamp } from '../http/schemas.js';
import { ORG_ROLES } from '../kernel/access-terms/roles.js';
import { Chat } from '../platform/index.js';

export const ACCOUNT_EXPORT_FORMAT = 'gatehouse.account-export';
export const ACCOUNT_EXPORT_VERSION = 1;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * GET /v1/users/me/export: everything the account holds, as one JSON document (docs/guides/account.md,
 * "Your data"). The collections use the API's own shapes (Agent, Chat, Message, WebhookEndpoint, ApiKey,
 * Passkey, Identity, SecurityEvent), so what a client already parses it can read here; no secret,
 * hash or key material is in it.
 */
export const AccountExport = Type.Object(
  {
    format: Type.Literal(ACCOUNT_EXPORT_FORMAT),
    version: Type.Literal(ACCOUNT_EXPORT_VERSION, { description: 'Raised only when a field changes meaning or goes; new fields may appear in any version' }),
    exported_at: Timestamp,
    user: Type.Object({
      id: Type.String(),
      email: Type.String(),
      name: Type.String(),
      email_verified: Type.Boolean(),
      role: StringEnum(['user', 'admin']),
      has_password: Type.Boolean({ description: 'False for an account made through a sign-in provider or passkeys only' }),
      personal_organization_id: Type.String(),
      created_at: Timestamp,
      updated_at: Timestamp,
    }, { additionalProperties: false }),
    organizations: Type.Array(Type.Object({
      id: Type.String(),
      name: Type.String(),
      personal: Type.Boolean(),
      role: StringEnum(ORG_ROLES),
      joined_at: Timestamp,
    }, { additionalProperties: false }), { description: 'Every organization the account is a member of, and its role there' }),
    personal_organization: Type.Object({
      id: Type.String(),
      agents: Type.Array(Type.Ref('Agent')),
      chats: Type.Array(Type.Object({ ...Chat.properties, messages: Type.Array(Type.Ref('Message'), { description: 'Oldest first' }) }, { additionalProperties: false })),
      webhook_endpoints: Type.Array(Type.Ref('WebhookEndpoint'), { description: 'Without their signing secrets' }),
      api_keys: Type.Array(Type.Ref('ApiKey'), { description: 'The live keys, without their secrets' }),
    }, { additionalProperties: false, description: 'What the personal organization holds (a team\'s data belongs to the team: export it from there)' }),
    sessions: Type.Array(Type.Object({
      id: Type.String(),
      created_at: Timestamp,
      last_used_at: Timestamp,
      expires_at: Timestamp,
      revoked_at: Nullable(Timestamp),
      ip: Nullable(Type.String()),
      user_agent: Nullable(Type.String()),
    }, { additionalProperties: false }), { description: 'Every session, ended ones too, oldest first' }),
    passkeys: Type.Array(Type.Ref('Passkey')),
    identities: Type.Array(Type.Ref('Identity'), { description: 'Linked sign-in providers' }),
    security_events: Type.Array(Type.Ref('SecurityEvent'), { description: 'The security log, oldest first' }),
  },
  { $id: 'AccountExport', additionalProperties: false },
);
