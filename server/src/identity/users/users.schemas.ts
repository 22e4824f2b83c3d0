import { Type, type Static } from 'typebox';
import { StringEnum, Timestamp } from '../../http/schemas.js';
import { PASSWORD_MAX, PASSWORD_MIN } from '../passwords/password-policy.js';
import { TIERS } from '../../kernel/access-terms/tiers.js';
import { ORG_ROLES } from '../../kernel/access-terms/roles.js';

/** No C0/C1 control characters (newlines, NUL, escape sequences) in display names. */
const NO_CONTROL_CHARS = '^[^\\p{Cc}]*$';

export const NameField = Type.String({ minLength: 1, maxLength: 100, pattern: NO_CONTROL_CHARS, example: 'Ada Lovelace' });
// Bounds are checked again in code (in code points); the schema bounds stop absurd inputs early.
export const PasswordField = Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX * 4, example: 'correct horse battery staple' });
export const EmailField = Type.String({ format: 'email', maxLength: 254, example: 'ada@example.com' });

export const User = Type.Object(
  {
    id: Type.String({ example: 'usr_01jd4z3k8x2v6n9q7w5e3r1t0y' }),
    email: Type.String(),
    name: Type.String(),
    created_at: Timestamp,
  },
  { $id: 'User', additionalProperties: false },
);

export const Me = Type.Object(
  {
    id: Type.String(),
    email: Type.Union([Type.String(), Type.Null()], { description: 'null for a guest (it has no address until it upgrades)' }),
    is_anonymous: Type.Boolean({ description: 'A guest account (ANONYMOUS_SIGN_IN): no address, refused what would give it a lasting credential or a team until POST /v1/users/me/upgrade' }),
    name: Type.String(),
    created_at: Timestamp,
    updated_at: Timestamp,
    tier: StringEnum(TIERS, { description: 'The tier of the organization the request acted for (Gatehouse-Organization; by default the personal one)' }),
    role: StringEnum(['user', 'admin']),
    email_verified: Type.Boolean(),
    has_password: Type.Boolean({ description: 'false: the account signs in with a provider or a passkey only; its sensitive changes are confirmed by a recent sign-in instead of a password' }),
    limits: Type.Object({ per_minute: Type.Integer(), per_day: Type.Integer(), streams: Type.Integer({ description: 'Live streams the organization may hold open at once' }) }, { description: "That organization's budget" }),
    personal_organization_id: Type.String({ description: 'The organization created with the account; tokens act for it unless Gatehouse-Organization names another' }),
    organization: Type.Object({ id: Type.String(), role: StringEnum(ORG_ROLES) }, { description: 'The organization the request acted for, and the caller\'s role in it' }),
  },
  { $id: 'Me', additionalProperties: false },
);

export const RegisterBody = Type.Object({ email: EmailField, password: PasswordField, name: NameField }, { additionalProperties: false });
export type RegisterBody = Static<typeof RegisterBody>;

export const UpdateMeBody = Type.Object({ name: Type.Optional(NameField) }, { additionalProperties: false });
export type UpdateMeBody = Static<typeof UpdateMeBody>;

const CurrentPassword = Type.String({ minLength: 1, maxLength: 1024, description: 'The current password; an account without one leaves it out (a recent sign-in confirms it)' });

export const DeleteMeBody = Type.Object({ password: Type.Optional(CurrentPassword) }, { additionalProperties: false });
export type DeleteMeBody = Static<typeof DeleteMeBody>;

export const DeletionScheduled = Type.Object(
  { deletion_due_at: Timestamp },
  { additionalProperties: false, description: 'When the account and its data are deleted; signing in before then restores it' },
);

export const ChangeEmailBody = Type.Object({ email: EmailField, password: Type.Optional(CurrentPassword) }, { additionalProperties: false });
export type ChangeEmailBody = Static<typeof ChangeEmailBody>;

export const EmailChangePending = Type.Object(
  { pending_email: Type.String({ description: 'The address the confirmation link went to; the account keeps its address until the link is followed' }) },
  { additionalProperties: false },
);

export const ChangePasswordBody = Type.Object(
  { current_password: Type.String({ minLength: 1, maxLength: 1024 }), new_password: PasswordField },
  { additionalProperties: false },
);
export type ChangePasswordBody = Static<typeof ChangePasswordBody>;
