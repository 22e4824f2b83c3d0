import { randomBytes } from 'node:crypto';
import { type Kysely } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/kernel/ids.js';
import { migrateToLatest, type DatabaseHandle } from '../src/kernel/db/database.js';
import { scratchDatabase } from './scratch-database.js';
import { MIGRATIONS } from '../src/kernel/db/migrations/index.js';
import { createTestApp, dialect as appDialect, STRONG_PASSWORD, type TestApp } from './harness.js';

/**
 * Before provider addresses followed registration's rule, a provider sign-in stored any address
 * without spaces, confirmed, with `email_normalized = email.toLowerCase()`: a KELVIN SIGN "K"
 * (U+212A) became ASCII "k", so the row held the normalized address of someone else, blocked its
 * owner's registration and accepted invitations sent to it. Migration 0017 releases such addresses.
 */
const KELVIN = '\u212A';
const url = process.env.DATABASE_URL ?? 'sqlite:';
const dialect = url.startsWith('postgres') ? 'postgres' : 'sqlite';
type Row = Record<string, unknown>;

describe(`migration 0017 releases the addresses stored unfolded by the old provider path (${dialect})`, () => {
  const scratch = scratchDatabase('0017');
  const { schema, open } = scratch;
  let handle: DatabaseHandle;

  it('releases each address that fails the rule or whose stored form is not today’s, in batches, and leaves every other row alone', async () => {
    handle = await open();
    await migrateToLatest(handle, '0016-mfa-pending-link');
    const db = handle.db as unknown as Kysely<any>;

    const at = new Date('2026-01-01T00:00:00.000Z').toISOString();
    const seeded: Row[] = [];
    const account = async (email: string, emailNormalized: string, extra: Row = {}) => {
      const id = newId('user');
      const orgId = `org_${id.slice('usr_'.length)}`;
      await db.insertInto('organizations').values({ id: orgId, name: 'Personal', personal: 1, tier: 'free', limit_per_minute: null, limit_per_day: null, limit_streams: null, created_at: at, updated_at: at }).execute();
      const row = { id, email, email_normalized: emailNormalized, name: 'Someone', password_hash: '', role: 'user', email_verified: 1, disabled: 0, created_at: at, updated_at: at, personal_org_id: orgId, deletion_due_at: null, ...extra };
      await db.insertInto('users').values(row).execute();
      seeded.push(row);
      return id;
    };
    const kelvin = await account(`${KELVIN}ate@example.com`, 'kate@example.com');
    const accented = await account('jos\u00e9@example.com', 'jos\u00e9@example.com');
    const unlowered = await account('Upper@Example.com', 'upper@example.com'.toUpperCase());
    // More than one batch of well-formed accounts, which keep everything.
    const fine: string[] = [];
    for (let i = 0; i < 1_100; i++) fine.push(await account(`user${i}@example.com`, `user${i}@example.com`, { password_hash: `$argon2id$${i}` }));
    const mixedCase = await account('Mixed.Case@Example.com', 'mixed.case@example.com');
    // A reset link mailed to the look-alike before: it must not confirm anything any more.
    await db.insertInto('email_tokens').values({ token_hash: 'a'.repeat(64), user_id: kelvin, purpose: 'reset_password', email: `${KELVIN}ate@example.com`, created_at: at, expires_at: '2999-01-01T00:00:00.000Z', used_at: null }).execute();

    expect(await migrateToLatest(handle, '0017-release-unfolded-addresses')).toEqual(['0017-release-unfolded-addresses']);

    const rows = new Map((await db.selectFrom('users').selectAll().execute() as Row[]).map((r) => [r.id as string, r]));
    for (const id of [kelvin, accented, unlowered]) {
      expect(rows.get(id)).toMatchObject({ email: `${id}@unclaimed.invalid`, email_normalized: `${id}@unclaimed.invalid`, email_verified: 0 });
    }
    for (const row of seeded.filter((r) => ![kelvin, accented, unlowered].includes(r.id as string))) expect(rows.get(row.id as string)).toMatchObject(row);
    expect(fine).toHaveLength(1_100);
    expect(rows.get(mixedCase)).toMatchObject({ email: 'Mixed.Case@Example.com', email_verified: 1 });
    expect(await db.selectFrom('email_tokens').select('used_at').where('user_id', '=', kelvin).executeTakeFirstOrThrow()).not.toEqual({ used_at: null });
  });
});

describe(`after migration 0017 the address's owner registers it (${appDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('an account the old provider path stored with a KELVIN SIGN look-alike blocks the owner before, not after', async () => {
    const owner = `kate-${randomBytes(4).toString('hex')}@example.com`;
    // What the old provider path wrote (the schema of 0017 is 0016's: the row is written as then).
    const squatter = await t.register();
    const lookAlike = owner.replace('k', KELVIN);
    await t.deps.database.db.updateTable('users')
      .set({ email: lookAlike, email_normalized: lookAlike.toLowerCase(), email_verified: 1, password_hash: '' })
      .where('id', '=', squatter.id).execute();
    await t.deps.accounts.changed(squatter.id);
    const before = await t.request({ method: 'POST', url: '/v1/auth/register', payload: { email: owner, password: STRONG_PASSWORD, name: 'Kate' } });
    expect(before.statusCode).toBe(409);

    await MIGRATIONS['0017-release-unfolded-addresses']!.up(t.deps.database.db as unknown as Kysely<any>);
    await t.deps.accounts.changed(squatter.id);

    const after = await t.request({ method: 'POST', url: '/v1/auth/register', payload: { email: owner, password: STRONG_PASSWORD, name: 'Kate' } });
    expect(after.statusCode, after.body).toBe(201);
    expect(after.json().id).not.toBe(squatter.id);
    expect(await t.deps.database.db.selectFrom('users').select(['email', 'email_verified']).where('id', '=', squatter.id).executeTakeFirstOrThrow())
      .toEqual({ email: `${squatter.id}@unclaimed.invalid`, email_verified: 0 });
  });
});
