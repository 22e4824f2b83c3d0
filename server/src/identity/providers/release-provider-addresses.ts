import type { Kysely } from 'kysely';
import { normalizeEmail, releasedAddress } from '../../kernel/email-address.js';
import { isoTime, type Clock } from '../../kernel/clock.js';
import type { Database } from '../../kernel/db/schema.js';
import type { SecurityLog } from '../security-log/security-log.js';
import { NO_PASSWORD } from '../users/users.repository.js';

const BATCH = 500;

/**
 * `gatehouse users release-provider-addresses <provider>`: for a provider the operator configured
 * (or now configures) `link_by_email: false`, the accounts it made before Gatehouse held such
 * addresses unconfirmed (issue 31, defect 3) hold the address it asserted, confirmed. A migration
 * cannot find them (which provider is trusted for addresses is configuration, not data); the
 * operator names the provider. An account is released when its address is confirmed, it has no
 * password and its only ways in are identities of that provider (no other provider, no passkey):
 * nothing its owner set proves the address. It gives the address up as a registration takes a
 * provider-claimed one (accounts/unproven-address.ts): `<id>@unclaimed.invalid`, unconfirmed, its
 * mailed links dead; it keeps its provider sign-in and sets a real address by a change of email.
 * Returns the released accounts' ids, for the caller to tell running instances.
 */
export async function releaseProviderAddresses(deps: { db: Kysely<Database>; clock: Clock; securityLog: SecurityLog }, provider: string): Promise<string[]> {
  const { db, clock } = deps;
  const released: string[] = [];
  let after = '';
  for (;;) {
    const page = await db.selectFrom('users').select('id')
      .where('id', '>', after).where('email_verified', '=', 1).where('password_hash', '=', NO_PASSWORD)
      .where((eb) => eb.exists(eb.selectFrom('identities').select('id').whereRef('identities.user_id', '=', 'users.id').where('identities.provider', '=', provider)))
      .where((eb) => eb.not(eb.exists(eb.selectFrom('identities').select('id').whereRef('identities.user_id', '=', 'users.id').where('identities.provider', '<>', provider))))
      .where((eb) => eb.not(eb.exists(eb.selectFrom('passkeys').select('id').whereRef('passkeys.user_id', '=', 'users.id'))))
      .orderBy('id').limit(BATCH).execute();
    if (page.length === 0) return released;
    after = page[page.length - 1]!.id;
    for (const { id } of page) {
      const address = releasedAddress(id);
      const now = isoTime(clock.now());
      const done = await db.transaction().execute(async (trx) => {
        // Conditional: an account whose owner set a password meanwhile keeps its address.
        const updated = await trx.updateTable('users').set({ email: address, email_normalized: normalizeEmail(address), email_verified: 0, updated_at: now })
          .where('id', '=', id).where('email_verified', '=', 1).where('password_hash', '=', NO_PASSWORD).executeTakeFirst();
        if (Number(updated.numUpdatedRows) !== 1) return false;
        await trx.updateTable('email_tokens').set({ used_at: now }).where('user_id', '=', id).where('used_at', 'is', null).execute();
        return true;
      });
      if (!done) continue;
      released.push(id);
      await deps.securityLog.record(id, 'email_changed', undefined, { reason: 'released_by_operator', provider, email: address });
    }
  }
}
