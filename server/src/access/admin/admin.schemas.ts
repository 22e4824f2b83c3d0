import { Type } from 'typebox';
import { limitsFor, streamCapFor, TIERS, type Tier } from '../../kernel/access-terms/tiers.js';
import { ORG_ROLES } from '../../kernel/access-terms/roles.js';
import { PageLimit, StringEnum, Timestamp } from '../../http/schemas.js';
import type { UserWithPlan } from '../../identity/index.js';
import type { OrganizationRow } from '../organizations/organizations.repository.js';
import type { UserMembership } from './admin.service.js';

// The columns are `integer` (32-bit on PostgreSQL): a larger limit overflowed there (a 500, found by fuzzing).
const LIMIT_MAX = 2_147_483_647;
export const LimitsBody = Type.Object(
  {
    per_minute: Type.Integer({ minimum: 1, maximum: LIMIT_MAX }),
    per_day: Type.Integer({ minimum: 1, maximum: LIMIT_MAX }),
    streams: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'Live streams open at once; default: the tier\'s' })),
  },
  { additionalProperties: false },
);

/** The longest `q`: enough for any address or name part, short enough to keep a LIKE cheap to build. */
export const SEARCH_MAX_LENGTH = 100;

export const AdminUsersQuery = Type.Object(
  {
    email: Type.Optional(Type.String({ maxLength: 254, description: 'The exact address, any letter case' })),
    q: Type.Optional(Type.String({
      minLength: 1, maxLength: SEARCH_MAX_LENGTH,
      description: 'Part of the address or the name, any letter case (% and _ match themselves). Not indexed: on a large table a rare match reads every user until the page is full.',
    })),
    tier: Type.Optional(StringEnum(TIERS)),
    disabled: Type.Optional(Type.Boolean({ description: 'true: disabled accounts only; false: enabled ones only' })),
    limit: PageLimit,
    cursor: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

const EffectiveLimits = Type.Object({ per_minute: Type.Integer(), per_day: Type.Integer(), streams: Type.Integer() }, { additionalProperties: false, description: 'Effective limits' });
const CustomLimits = Type.Union([Type.Object({
  per_minute: Type.Union([Type.Integer(), Type.Null()]), per_day: Type.Union([Type.Integer(), Type.Null()]), streams: Type.Union([Type.Integer(), Type.Null()]),
}), Type.Null()]);

const adminUserProperties = {
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  tier: StringEnum(TIERS),
  role: Type.String(),
  disabled: Type.Boolean(),
  email_verified: Type.Boolean(),
  limits: EffectiveLimits,
  custom_limits: CustomLimits,
  deletion_due_at: Type.Union([Timestamp, Type.Null()], { description: 'When a deletion the user asked for becomes final (signing in before then cancels it); null: none pending' }),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const AdminUser = Type.Object(adminUserProperties, { $id: 'AdminUser', additionalProperties: false });

export const AdminUserDetail = Type.Object(
  {
    ...adminUserProperties,
    organizations: Type.Array(
      Type.Object({ id: Type.String(), name: Type.String(), role: StringEnum(ORG_ROLES), personal: Type.Boolean() }, { additionalProperties: false }),
      { description: 'Every organization the user belongs to (at most 100), newest first, with their role there' },
    ),
  },
  { $id: 'AdminUserDetail', additionalProperties: false },
);

export const AdminOrganization = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    personal: Type.Boolean(),
    tier: StringEnum(TIERS),
    limits: EffectiveLimits,
    custom_limits: CustomLimits,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'AdminOrganization', additionalProperties: false },
);

function customLimitsOf(row: { limit_per_minute: number | null; limit_per_day: number | null; limit_streams: number | null }) {
  const custom = row.limit_per_minute !== null || row.limit_per_day !== null || row.limit_streams !== null;
  return custom ? { per_minute: row.limit_per_minute, per_day: row.limit_per_day, streams: row.limit_streams } : null;
}

export function presentAdminOrganization(row: OrganizationRow) {
  return {
    id: row.id, name: row.name, personal: row.personal === 1, tier: row.tier as Tier,
    limits: { ...limitsFor(row), streams: streamCapFor(row) }, custom_limits: customLimitsOf(row), created_at: row.created_at, updated_at: row.updated_at,
  };
}

export function presentAdminUser(row: UserWithPlan) {
  return {
    id: row.id, email: row.email, name: row.name, tier: row.tier as Tier, role: row.role,
    disabled: row.disabled === 1, email_verified: row.email_verified === 1, limits: { ...limitsFor(row), streams: streamCapFor(row) },
    custom_limits: customLimitsOf(row), deletion_due_at: row.deletion_due_at,
    created_at: row.created_at, updated_at: row.updated_at,
  };
}

export function presentAdminUserDetail(user: UserWithPlan, organizations: UserMembership[]) {
  return { ...presentAdminUser(user), organizations };
}
