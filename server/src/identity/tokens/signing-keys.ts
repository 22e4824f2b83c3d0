import { createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../kernel/clock.js';
import { isoTime } from '../../kernel/clock.js';
import type { Database } from '../../kernel/db/schema.js';
import { newId } from '../../kernel/ids.js';
import { openPrivateKey, sealPrivateKey } from './key-encryption.js';

export interface PublicJwk extends JsonWebKey {
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

interface LoadedKey {
  kid: string;
  createdAt: string;
  retiredAt: string | null;
  publicKey: KeyObject;
  privateKey: KeyObject;
  jwk: PublicJwk;
}

export interface KeyRing {
  /** The newest key; every instance signs with it once it has reloaded. */
  current(): { kid: string; privateKey: KeyObject };
  /** The public key for a kid, reloading from the database when it is unknown (rate-limited). */
  publicKey(kid: string): Promise<KeyObject | undefined>;
  /** Keys still able to have live tokens: active ones and those retired less than a token lifetime ago. */
  jwks(): { keys: PublicJwk[] };
  rotate(): Promise<string>;
  reload(): Promise<void>;
}

const RELOAD_ON_MISS_INTERVAL_MS = 5_000;

export function generateSigningKey(db: Kysely<Database>, clock: Clock, secret: string | undefined) {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const kid = newId('signingKey');
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid, alg: 'EdDSA', use: 'sig' };
  return db
    .insertInto('signing_keys')
    .values({
      kid,
      algorithm: 'EdDSA',
      public_jwk: JSON.stringify(jwk),
      private_key: sealPrivateKey(privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), secret),
      created_at: isoTime(clock.now()),
      retired_at: null,
    })
    .execute()
    .then(() => kid);
}

export async function createKeyRing(deps: { db: Kysely<Database>; clock: Clock; secret: string | undefined; accessTokenTtl: number }): Promise<KeyRing> {
  const { db, clock, secret } = deps;
  let keys: LoadedKey[] = [];
  let lastMissReload = 0;

  async function reload(): Promise<void> {
    const rows = await db.selectFrom('signing_keys').selectAll().orderBy('created_at', 'desc').orderBy('kid', 'desc').execute();
    keys = rows.map((row) => ({
      kid: row.kid,
      createdAt: row.created_at,
      retiredAt: row.retired_at,
      privateKey: createPrivateKey(openPrivateKey(row.private_key, secret)),
      publicKey: createPublicKey({ key: JSON.parse(row.public_jwk) as JsonWebKey, format: 'jwk' }),
      jwk: JSON.parse(row.public_jwk) as PublicJwk,
    }));
  }

  await reload();
  if (!keys.some((k) => k.retiredAt === null)) {
    await generateSigningKey(db, clock, secret);
    await reload();
  }

  const stillPublished = (k: LoadedKey) =>
    k.retiredAt === null || Date.parse(k.retiredAt) + deps.accessTokenTtl * 1000 + 60_000 > clock.now();

  return {
    current() {
      const key = keys.find((k) => k.retiredAt === null) ?? keys[0];
      if (!key) throw new Error('no signing key loaded');
      return { kid: key.kid, privateKey: key.privateKey };
    },
    async publicKey(kid) {
      let key = keys.find((k) => k.kid === kid);
      // An unknown kid may be a key another instance just made; reload, but not on every forged kid.
      if (!key && clock.now() - lastMissReload > RELOAD_ON_MISS_INTERVAL_MS) {
        lastMissReload = clock.now();
        await reload();
        key = keys.find((k) => k.kid === kid);
      }
      return key && stillPublished(key) ? key.publicKey : undefined;
    },
    jwks() {
      return { keys: keys.filter(stillPublished).map((k) => k.jwk) };
    },
    async rotate() {
      const kid = await rotateSigningKeys(db, clock, secret);
      await reload();
      return kid;
    },
    reload,
  };
}

/** Adds a new key and retires the others; retired keys stay in JWKS until their tokens expire. */
export async function rotateSigningKeys(db: Kysely<Database>, clock: Clock, secret: string | undefined): Promise<string> {
  return db.transaction().execute(async (trx) => {
    await trx.updateTable('signing_keys').set({ retired_at: isoTime(clock.now()) }).where('retired_at', 'is', null).execute();
    return generateSigningKey(trx, clock, secret);
  });
}
