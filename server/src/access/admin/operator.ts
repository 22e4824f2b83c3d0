import type { Kysely } from 'kysely';
import type { Redis } from 'ioredis';
import { isId } from '../../kernel/ids.js';
import { createMemoryBus, publishOnce, type Bus } from '../../kernel/bus.js';
import type { Clock } from '../../kernel/clock.js';
import type { DialectName } from '../../kernel/db/database.js';
import type { Database } from '../../kernel/db/schema.js';
import { connectRedis } from '../../kernel/redis.js';
import { createRevocationList } from '../../kernel/revocation.js';
import { createApiKeysRepository, type ApiKeyRow } from '../api-keys/api-keys.repository.js';
import { createApiKeysService } from '../api-keys/api-keys.service.js';
import { createSecurityLog, createSessionsRepository, createSessionsService, createUsersRepository, releaseProviderAddresses, type UserRow, type UserWithPlan } from '../../identity/index.js';
import { createAdminService } from './admin.service.js';
import { createOauthGrants } from '../oauth/oauth-grants.js';

export interface OperatorDeps {
  db: Kysely<Database>;
  dialect: DialectName;
  /** Set: running instances are told at once through Redis, as the API tells them. */
  redisUrl?: string;
  clock: Clock;
  accessTokenTtl: number;
  refreshTokenTtl: number;
  maxActiveKeys: number;
  onError: (error: unknown) => void;
}

/**
 * A bus for a process that lives for one command: it publishes (through Redis when there is one)
 * and caches nothing, so it subscribes to nothing. A message Redis does not take is remembered,
 * not thrown: the command finishes its database work (a disabled account's sessions revoked even
 * so), then says which instances it could not tell.
 */
function createOneShotBus(redisUrl: string | undefined): Bus & { undelivered: string[] } {
  const undelivered: string[] = [];
  if (!redisUrl) return Object.assign(createMemoryBus(), { undelivered });
  let redis: Promise<Redis> | undefined;
  return {
    undelivered,
    async publish(message) {
      try {
        // Connection errors show as the publish's failure below.
        redis ??= connectRedis(redisUrl, 'commands');
        await publishOnce(await redis, message);
      } catch (error) {
        undelivered.push(`${message.type}: ${(error as Error).message}`);
      }
    },
    subscribe: () => {},
    onReconnect: () => {},
    async close() {
      if (redis) (await redis).disconnect();
    },
  };
}

/**
 * What the operator's one-shot commands (`npx gatehouse users disable|enable`, `keys revoke`) act
 * through: the services the admin and API-key routes use, so a command has exactly the API's
 * effects (sessions revoked with their event, the key counter given back, audit and security
 * records), and running instances hear of it on the same bus messages.
 */
export function createOperator(deps: OperatorDeps) {
  const { db, clock } = deps;
  const bus = createOneShotBus(deps.redisUrl);
  const securityLog = createSecurityLog({ db, clock, onError: deps.onError });
  const revocations = createRevocationList(bus, () => clock.now());
  const grants = createOauthGrants({ db, clock, revocations, accessTokenTtl: deps.accessTokenTtl, securityLog, onEvent: () => {} });
  const sessions = createSessionsService({
    sessions: createSessionsRepository(db, deps.dialect), revocations, clock, accessTokenTtl: deps.accessTokenTtl, refreshTokenTtl: deps.refreshTokenTtl,
    accessTokens: { issue: () => Promise.reject(new Error('the operator\'s commands start no session')) },
    // A running instance's webhook worker finds the events on its next poll (this process cannot wake it).
    onEvent: () => {},
    endAppGrants: (userId) => grants.revokeAllOf(userId),
  });
  const admin = createAdminService({
    db, sessions, securityLog, clock,
    accounts: { changed: (userId) => bus.publish({ type: 'account-changed', userId }) },
    organizations: { changed: (orgId) => bus.publish({ type: 'organization-changed', orgId }) },
  });
  const apiKeys = createApiKeysService({ repo: createApiKeysRepository(db), dialect: deps.dialect, bus, clock, maxActiveKeys: deps.maxActiveKeys, onEvent: () => {} });
  const users = createUsersRepository(db);

  return {
    /** Whether running instances hear of changes at once (Redis), or when their cached copies expire. */
    reachesInstances: Boolean(deps.redisUrl),
    /** Messages Redis did not take during this command. */
    undelivered: bus.undelivered,

    /** The account a `usr_…` id or an email names. */
    findUser: (emailOrId: string): Promise<UserRow | undefined> => (isId('user', emailOrId) ? users.findById(emailOrId) : users.findByEmail(emailOrId)),

    /** The admin API's `PATCH /admin/users/{id} {disabled}`, recorded as the operator's. */
    setDisabled: (userId: string, disabled: boolean): Promise<UserWithPlan> => admin.update(userId, { disabled }, { operator: true }),

    /** The API's revoke of any live key; the key's owner sees it in their security log. Undefined: no live key with this id. */
    async revokeApiKey(id: string): Promise<ApiKeyRow | undefined> {
      const key = await apiKeys.revokeAsOperator(id);
      if (key) await securityLog.record(key.user_id, 'api_key_revoked', undefined, { api_key_id: key.id, name: key.name, by: 'operator' });
      return key;
    },

    /** Releases the addresses a provider not trusted for them asserted (accounts/release-provider-addresses.ts); returns how many. */
    async releaseProviderAddresses(provider: string): Promise<number> {
      const released = await releaseProviderAddresses({ db, clock, securityLog }, provider);
      for (const userId of released) await bus.publish({ type: 'account-changed', userId });
      return released.length;
    },

    async close(): Promise<void> {
      await revocations.close();
      await bus.close();
    },
  };
}
export type Operator = ReturnType<typeof createOperator>;
