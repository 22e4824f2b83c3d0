import { hash, verify } from '@node-rs/argon2';

const ARGON2ID = 2; // Algorithm.Argon2id; a const enum, which verbatimModuleSyntax cannot import

/** OWASP's argon2id baseline: 19 MiB, 2 passes, 1 lane (≈10 ms here). */
const ARGON2_OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
  /** Spend the same time as a real verify, for answers that must not reveal whether a user exists. */
  verifyDummy(password: string): Promise<void>;
}

export async function createPasswordHasher(): Promise<PasswordHasher> {
  const dummyHash = await hash('dummy password for timing equality', ARGON2_OPTIONS);
  return {
    hash: (password) => hash(password, ARGON2_OPTIONS),
    verify: async (stored, password) => {
      try {
        return await verify(stored, password);
      } catch {
        return false; // a malformed stored hash is a failed match, never a 500 to the caller
      }
    },
    verifyDummy: async (password) => {
      await verify(dummyHash, password).catch(() => false);
    },
  };
}
