import type { Migration } from 'kysely';
import * as core from './0001-core.js';
import * as apiKeys from './0002-api-keys.js';
import * as platform from './0003-platform.js';
import * as emailAndSecurityLog from './0005-email-and-security-log.js';
import * as idempotencyLocation from './0006-idempotency-location.js';
import * as countersAndIndexes from './0007-counters-and-indexes.js';
import * as secondFactors from './0008-second-factors.js';
import * as passkeys from './0009-passkeys.js';
import * as identities from './0010-identities.js';
import * as liveStreams from './0011-live-streams.js';
import * as usageHistory from './0012-usage-history.js';
import * as platformKeys from './0013-platform-keys.js';
import * as organizations from './0014-organizations.js';
import * as operations from './0015-operations.js';
import * as mfaPendingLink from './0016-mfa-pending-link.js';
import * as releaseUnfoldedAddresses from './0017-release-unfolded-addresses.js';
import * as personalMembers from './0018-personal-members.js';
import * as oauth from './0019-oauth.js';
import * as passwordlessAndGuests from './0020-passwordless-and-guests.js';

/** Numbered, append-only. Never edit a migration that has shipped; add the next number. */
export const MIGRATIONS: Record<string, Migration> = {
  '0001-core': core,
  '0002-api-keys': apiKeys,
  '0003-platform': platform,
  // 0004 is left for the webhooks work, should it need a migration of its own.
  '0005-email-and-security-log': emailAndSecurityLog,
  '0006-idempotency-location': idempotencyLocation,
  '0007-counters-and-indexes': countersAndIndexes,
  '0008-second-factors': secondFactors,
  '0009-passkeys': passkeys,
  '0010-identities': identities,
  '0011-live-streams': liveStreams,
  '0012-usage-history': usageHistory,
  '0013-platform-keys': platformKeys,
  '0014-organizations': organizations,
  '0015-operations': operations,
  '0016-mfa-pending-link': mfaPendingLink,
  '0017-release-unfolded-addresses': releaseUnfoldedAddresses,
  '0018-personal-members': personalMembers,
  '0019-oauth': oauth,
  '0020-passwordless-and-guests': passwordlessAndGuests,
};
