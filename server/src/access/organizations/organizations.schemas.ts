import { Type, type Static } from 'typebox';
import { ORG_ROLES } from '../../kernel/access-terms/roles.js';
import { TIERS } from '../../kernel/access-terms/tiers.js';
import { StringEnum, Timestamp } from '../../http/schemas.js';
import { EmailField, NameField } from '../../identity/index.js';

const RoleField = StringEnum(ORG_ROLES, { description: 'viewer: reads; member: also creates and uses agents and chats; admin: also manages members, API keys and webhooks; owner: also deletes the organization and makes owners' });

export const Organization = Type.Object(
  {
    id: Type.String({ example: 'org_01jd4z3k8x2v6n9q7w5e3r1t0y' }),
    name: Type.String(),
    personal: Type.Boolean({ description: 'The organization created with its user: deleted only with that user, who stays its owner' }),
    role: RoleField,
    tier: StringEnum(TIERS),
    limits: Type.Object(
      { per_minute: Type.Integer(), per_day: Type.Integer(), streams: Type.Integer({ description: 'Live streams open at once' }) },
      { additionalProperties: false, description: 'The request budget every member and API key of the organization spends from' },
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Organization', additionalProperties: false },
);

export const Member = Type.Object(
  { user_id: Type.String(), email: Type.String(), name: Type.String(), role: RoleField, joined_at: Timestamp },
  { $id: 'Member', additionalProperties: false },
);

export const Invitation = Type.Object(
  {
    id: Type.String({ example: 'inv_01jd4z3k8x2v6n9q7w5e3r1t0y' }),
    organization_id: Type.String(),
    email: Type.String(),
    role: RoleField,
    invited_by: Type.Union([Type.String(), Type.Null()], { description: 'The user id of the member who invited' }),
    status: StringEnum(['pending', 'accepted', 'revoked', 'expired'] as const),
    created_at: Timestamp,
    expires_at: Timestamp,
  },
  { $id: 'Invitation', additionalProperties: false, description: 'The link to accept it is mailed to the address and shown nowhere else' },
);

export const AuditEvent = Type.Object(
  {
    id: Type.String({ example: 'aud_01jd4z3k8x2v6n9q7w5e3r1t0y' }),
    action: Type.String({ description: 'organization.created, organization.updated, member.invited, invitation.revoked, member.joined, member.role_changed, member.removed, member.left, …' }),
    actor: Type.Object(
      { user_id: Type.Union([Type.String(), Type.Null()]), key_id: Type.Union([Type.String(), Type.Null()], { description: 'The API key used, if one was' }) },
      { additionalProperties: false },
    ),
    target_id: Type.Union([Type.String(), Type.Null()]),
    ip: Type.Union([Type.String(), Type.Null()]),
    user_agent: Type.Union([Type.String(), Type.Null()]),
    detail: Type.Record(Type.String(), Type.Unknown()),
    created_at: Timestamp,
  },
  { $id: 'AuditEvent', additionalProperties: false },
);

export const OrganizationNameBody = Type.Object({ name: NameField }, { additionalProperties: false });
export type OrganizationNameBody = Static<typeof OrganizationNameBody>;

export const ChangeRoleBody = Type.Object({ role: RoleField }, { additionalProperties: false });

export const RemoveMemberQuery = Type.Object(
  {
    api_keys: Type.Optional(StringEnum(['revoke', 'keep'] as const, {
      description: "revoke (default): the API keys the member created in this organization stop working at once; keep: they are handed to you and keep working (not when leaving)",
      default: 'revoke',
    })),
  },
  { additionalProperties: false },
);

export const InviteBody = Type.Object({ email: EmailField, role: RoleField }, { additionalProperties: false });
export type InviteBody = Static<typeof InviteBody>;

export const AcceptInvitationBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200, description: 'The token of the mailed link (gthi_…)' }) },
  { additionalProperties: false },
);

export const InvitationPreviewQuery = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200, description: 'The token of the mailed link (gthi_…)' }) },
  { additionalProperties: false },
);

export const InvitationPreview = Type.Object(
  {
    organization_name: Type.String(),
    inviter_name: Type.Union([Type.String(), Type.Null()], { description: 'The name of whoever sent it (null: they gave none, or their account is gone)' }),
    role: RoleField,
    expires_at: Timestamp,
  },
  { $id: 'InvitationPreview', additionalProperties: false },
);

export const OrgParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
export const MemberParams = Type.Object({ id: Type.String({ maxLength: 64 }), user_id: Type.String({ maxLength: 64 }) });
export const InvitationParams = Type.Object({ id: Type.String({ maxLength: 64 }), invitation_id: Type.String({ maxLength: 64 }) });
