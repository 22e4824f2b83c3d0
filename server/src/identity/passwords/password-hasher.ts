import { hash, verify } from '@node-rs/argon2';
import { availableParallelism } from 'node:os';
import { AppError } from '../../kernel/errors.js';
import { ConcurrencyGate, GateFullError } from '../../kernel/concurrency-gate.js';

const ARGON2ID = 2; // Algorithm.Argon2id; a const enum, which verbatimModuleSyntax cannot import

/** OWASP's argon2id baseline: 19 MiB, 2 passes, 1 lane (≈10 ms here). */
const ARGON2_OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
  /** Spend the same time as a real verify, for answers that must not reveal whether a user exists. */
  verifyDummy(password: string): Promise<void>;
}

/**
 * Argon2 is meant to be CPU-hard, and it runs on worker threads: a storm of logins would take
 * every core and starve the event loop that serves all other requests. So at most one hash per
 * core but one runs at a time (at least one), the others wait in order, and past
 * MAX_WAITING_HASHES (≈ half a second of work per slot) sign-ins are refused with 503 and
 * Retry-After instead of queueing without bound.
 */
export const HASH_SLOTS = Math.max(1, availableParallelism() - 1);
export const MAX_WAITING_HASHES = 64;

export async function createPasswordHasher(): Promise<PasswordHasher> {
  const dummyHash = await hash('dummy password for timing equality', ARGON2_OPTIONS);
  const gate = new ConcurrencyGate(HASH_SLOTS, MAX_WAITING_HASHES * HASH_SLOTS);
  const gated = async <T>(task: () => Promise<T>): Promise<T> => {
    try {
      return await gate.run(task);
    } catch (error) {
      if (!(error instanceof GateFullError)) throw error;
      throw new AppError('service_unavailable', 'Too many passwords are being checked right now; retry in a second.', { headers: { 'Retry-After': '1' } });
    }
  };
  return {
    hash: (password) => gated(() => hash(password, ARGON2_OPTIONS)),
    // A malformed stored hash is a failed match, never a 500 to the caller.
    verify: (stored, password) => gated(() => verify(stored, password).catch(() => false)),
    verifyDummy: async (password) => {
      await gated(() => verify(dummyHash, password).catch(() => false));
    },
  };
}
