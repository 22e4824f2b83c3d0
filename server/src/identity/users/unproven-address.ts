import type { Kysely } from 'kysely';
import type { ClientInfo } from '../../kernel/client-info.js';
import { AppError } from '../../kernel/errors.js';
import { normalizeEmail, releasedAddress } from '../../kernel/email-address.js';
import type { Clock } from '../../kernel/clock.js';
import { isoTime } from '../../kernel/clock.js';
import type { Database } from '../../kernel/db/schema.js';
import { recordEvent, type RecordedEvent } from '../../kernel/events/event-outbox.js';
import type { SecurityLog } from '../security-log/security-log.js';
import { NO_PASSWORD, type UserRow } from './users.repository.js';

/**
 * An address an account holds on nobody's proof: a sign-in provider not trusted for addresses
 * (`link_by_email: false`) asserted it, and no mailed link has confirmed it. Such an address
 * never blocks its owner (issue 31):
 * - a registration of the same address takes it (`yieldAddress`): the provider's account keeps
 *   its sign-in but holds a reserved address that routes nowhere (RFC 2606 `.invalid`) until its
 *   person sets a real one (a change of email, confirmed by mail);
 * - a password reset mailed to it proves the inbox: the provider identities and passkeys the
 *   account had before (`removeUnprovenSignInMethods`) were added by whoever claimed the
 *   address, and go;
 * - the ordinary verification link confirms it only when followed signed in as that very account
 *   (`admitUnprovenConfirmation`): the link proves the inbox, the session the account, so both
 *   proofs come from one person and the account keeps its sign-in methods. A claimant can have
 *   the mail sent to the address's owner, but the owner who clicks is not signed in as the
 *   claimant's account, and the claimant never sees the link.
 */

/** Whether `user` holds its address on a provider's word alone: unconfirmed, and no password set by its owner. */
/**
 * Who followed a mailed link, as the route could tell from the request's credential: a signed-in
 * user, or the refusal to answer where one is needed (no credential, an invalid or revoked one, an
 * API key, an account disabled or being deleted).
 */
export type LinkFollower = { userId: string } | { refused: AppError };

export const holdsUnprovenAddress = (user: Pick<UserRow, 'email_verified' | 'password_hash'>): boolean =>
  user.email_verified !== 1 && user.password_hash === NO_PASSWORD;

/**
 * Before a verification link of an account holding an unproven address is spent: only the
 * account itself, signed in, may follow it (the rule of a change of email's link, email-change.ts).
 * Throws the follower's refusal (401 signed out), or 403 for another account's session; the
 * caller's token guard then leaves the link unspent.
 */
export function admitUnprovenConfirmation(follower: LinkFollower, ownerId: string): void {
  if ('refused' in follower) throw follower.refused;
  if (follower.userId !== ownerId) {
    throw new AppError('forbidden', 'This address came from a sign-in provider: only its account, signed in, confirms it. Sign in to that account (with its provider), then open the link again.');
  }
}

/** The reserved address an account holds once it gave its unproven one up. */
export { releasedAddress };

/**
 * Gives the account's unproven address up, in the registering transaction. Conditional: an
 * account that confirmed its address or got a password meanwhile keeps it (false; the
 * registration's insert then meets the unique address and is refused as taken).
 */
export async function yieldAddress(trx: Kysely<Database>, userId: string, clock: Clock): Promise<boolean> {
  const address = releasedAddress(userId);
  const updated = await trx.updateTable('users').set({ email: address, email_normalized: normalizeEmail(address), updated_at: isoTime(clock.now()) })
    .where('id', '=', userId).where('email_verified', '=', 0).where('password_hash', '=', NO_PASSWORD).executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

export interface RemovedSignInMethods {
  identities: Array<{ id: string; provider: string }>;
  passkeys: Array<{ id: string; name: string }>;
  recorded: RecordedEvent[];
}

/** In the reset's transaction: removes every provider identity and passkey of the account (its sign-in methods but the password), with their events. */
export async function removeUnprovenSignInMethods(trx: Kysely<Database>, clock: Clock, userId: string): Promise<RemovedSignInMethods> {
  const identities = await trx.deleteFrom('identities').where('user_id', '=', userId).returning(['id', 'provider']).execute();
  const passkeys = await trx.deleteFrom('passkeys').where('user_id', '=', userId).returning(['id', 'name']).execute();
  const recorded: RecordedEvent[] = [];
  for (const row of identities) {
    recorded.push(await recordEvent(trx, clock, { userId, type: 'user.identity.unlinked', data: { user_id: userId, identity_id: row.id, provider: row.provider } }));
  }
  for (const row of passkeys) {
    recorded.push(await recordEvent(trx, clock, { userId, type: 'user.passkey.removed', data: { user_id: userId, passkey_id: row.id, name: row.name } }));
  }
  return { identities, passkeys, recorded };
}

/** After the commit: the owner reads in the security log what went and why. */
export async function logRemovedSignInMethods(
  securityLog: SecurityLog, userId: string, removed: RemovedSignInMethods, client: ClientInfo, reason: 'address_proven_by_reset' | 'address_proven_by_sign_in_code' = 'address_proven_by_reset',
): Promise<void> {
  for (const row of removed.identities) await securityLog.record(userId, 'identity_unlinked', client, { identity_id: row.id, provider: row.provider, reason });
  for (const row of removed.passkeys) await securityLog.record(userId, 'passkey_removed', client, { passkey_id: row.id, name: row.name, reason });
}
