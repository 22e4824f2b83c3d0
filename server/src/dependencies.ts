import type { Config } from './config.js';
import { systemClock, type Clock } from './infra/clock.js';
import { migrateToLatest, openDatabase, type DatabaseHandle } from './infra/db/database.js';
import { createMemoryAttemptLimiter, type AttemptLimiter } from './infra/limits/attempt-limiter.js';
import { createMemoryRevocationList, type RevocationList } from './infra/revocation.js';
import { createLoginService, type LoginService } from './modules/auth/login.service.js';
import { createPasswordHasher, type PasswordHasher } from './modules/auth/password-hasher.js';
import type { ReadinessCheck } from './modules/health/health.routes.js';
import { createSessionsRepository } from './modules/sessions/sessions.repository.js';
import { createSessionsService, type SessionsService } from './modules/sessions/sessions.service.js';
import { createAccessTokens, type AccessTokens } from './modules/tokens/access-tokens.js';
import { createKeyRing, type KeyRing } from './modules/tokens/signing-keys.js';
import { createUsersRepository } from './modules/users/users.repository.js';
import { createUsersService, type UsersService } from './modules/users/users.service.js';

/** Everything buildApp needs: infrastructure handles and the services wired on top of them. */
export interface Dependencies {
  config: Config;
  clock: Clock;
  database: DatabaseHandle;
  keyRing: KeyRing;
  accessTokens: AccessTokens;
  revocations: RevocationList;
  attempts: AttemptLimiter;
  hasher: PasswordHasher;
  users: UsersService;
  sessions: SessionsService;
  login: LoginService;
  readiness: ReadinessCheck[];
  /** Releases timers and connections; the database last. */
  close(): Promise<void>;
}

export interface DependencyOverrides {
  clock?: Clock;
  /** PostgreSQL schema (tests isolate themselves this way). */
  databaseSchema?: string;
}

export async function createDependencies(config: Config, overrides: DependencyOverrides = {}): Promise<Dependencies> {
  const clock = overrides.clock ?? systemClock;
  const database = await openDatabase({ url: config.databaseUrl, schema: overrides.databaseSchema });
  try {
    await migrateToLatest(database);
    const keyRing = await createKeyRing({ db: database.db, clock, secret: config.secret, accessTokenTtl: config.accessTokenTtl });
    const accessTokens = createAccessTokens({ keyRing, clock, issuer: config.publicUrl, ttlSeconds: config.accessTokenTtl });
    const revocations = createMemoryRevocationList(() => clock.now());
    const attempts = createMemoryAttemptLimiter({ now: () => clock.now() });
    const hasher = await createPasswordHasher();
    const sessions = createSessionsService({
      sessions: createSessionsRepository(database.db),
      accessTokens,
      revocations,
      clock,
      accessTokenTtl: config.accessTokenTtl,
      refreshTokenTtl: config.refreshTokenTtl,
    });
    await sessions.loadRecentRevocations();
    const usersRepository = createUsersRepository(database.db);
    const users = createUsersService({ users: usersRepository, sessions, hasher, clock });
    const login = createLoginService({ users: usersRepository, sessions, hasher, attempts, maxFailures: config.loginMaxFailures });
    // Another instance may rotate the signing key; pick it up well within a token lifetime.
    const keyReload = setInterval(() => void keyRing.reload().catch(() => {}), 60_000);
    keyReload.unref();
    return {
      config, clock, database, keyRing, accessTokens, revocations, attempts, hasher, users, sessions, login,
      readiness: [{ name: 'database', check: () => database.ping() }],
      async close() {
        clearInterval(keyReload);
        await revocations.close();
        await database.close();
      },
    };
  } catch (error) {
    await database.close().catch(() => {});
    throw error;
  }
}
