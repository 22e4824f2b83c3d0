import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { createMemoryBus, createRedisBus, type Bus } from './kernel/bus.js';
import { systemClock, type Clock } from './kernel/clock.js';
import { migrateToLatest, openDatabase, type DatabaseHandle } from './kernel/db/database.js';
import { withFallback } from './kernel/limits/fallback-limiter.js';
import type { AttemptLimiter, RateLimiter } from './kernel/limits/limiter.js';
import { createMemoryLimiter } from './kernel/limits/memory-limiter.js';
import { createRedisLimiter } from './kernel/limits/redis-limiter.js';
import { createMailer, type Mailer } from './kernel/mail/mailer.js';
import { connectRedis } from './kernel/redis.js';
import { createRevocationList, type RevocationList } from './kernel/revocation.js';
import { loadMailOverrides, mailLinks, mailTemplates, createAccessTokens, createAccountCache, createAccountEmailService, createEmailTokens, createIdentitiesRepository, createIdentitiesService, createKeyRing, createGuests, createLoginService, createMfaRepository, createPasswordlessService, createMfaService, createPasskeysRepository, createPasskeysService, createPasswordHasher, createProviderClients, createSecurityLog, createSessionsRepository, createSessionsService, createUsersRepository, createUsersService, redirectUriChecker, type AccessTokens, type AccountCache, type AccountEmailService, type IdentitiesService, type KeyRing, type Guests, type LoginService, type MfaService, type PasswordlessService, type PasskeysService, type PasswordHasher, type SecurityLog, type SessionsService, type UsersService } from './identity/index.js';
import { createAccountDeletion, createAccountExport, createAccountPurge, type AccountDeletion, type AccountExport, type AccountPurge } from './flows/index.js';
import { createAdminService, createAuthorizationServer, createClientMetadataDocuments, createOauthApps, createOauthConsent, createOauthGrants, createPersonalOrganization, createApiKeyVerifier, createApiKeysRepository, createApiKeysService, createOrganizationCache, createOrganizationsRepository, createOrganizationsService, createUsageCounter, createUsageHistoryRepository, createUsageHistoryService, createUsageRetention, createVerificationService, type AdminService, type AuthorizationServer, type OauthApps, type OauthConsent, type OauthGrants, type ApiKeyVerifierService, type ApiKeysService, type OrganizationCache, type OrganizationsService, type UsageCounter, type UsageHistoryService, type VerificationService } from './access/index.js';
import { createAgentsService, createChatsService, createMcpHandler, createMemoryEventNotices, createMemoryStreamSlots, createRedisEventNotices, createRedisStreamSlots, createStreams, createWebhooks, type AgentsService, type ChatsService, type EventNotices, type McpHandler, type StreamSlots, type Streams, type Webhooks } from './platform/index.js';
import { SERVICE_VERSION } from './kernel/version.js';
import { createEventRetention } from './kernel/events/event-retention.js';
import { createEventSignal, type EventSignal } from './kernel/events/event-signal.js';
import type { ReadinessCheck } from './http/health.routes.js';
import { STATIC_PAGE_CSP } from './http/page-headers.js';
import { problemPageHtml } from './http/problem-page.js';

/** Everything buildApp needs: infrastructure handles and the services wired on top of them. */
export interface Dependencies {
  config: Config;
  clock: Clock;
  database: DatabaseHandle;
  bus: Bus;
  keyRing: KeyRing;
  accessTokens: AccessTokens;
  revocations: RevocationList;
  attempts: AttemptLimiter;
  limiter: RateLimiter;
  hasher: PasswordHasher;
  accounts: AccountCache;
  users: UsersService;
  sessions: SessionsService;
  login: LoginService;
  /** Passwordless sign-in by a mailed code or link. */
  passwordless: PasswordlessService;
  /** Guest accounts (ANONYMOUS_SIGN_IN) and their upgrade. */
  guests: Guests;
  mfa: MfaService;
  passkeys: PasskeysService;
  identities: IdentitiesService;
  apiKeys: ApiKeysService;
  apiKeyVerifier: ApiKeyVerifierService;
  /** POST /v1/auth/verify: another credential's worth, for the platform's services. */
  verification: VerificationService;
  admin: AdminService;
  agents: AgentsService;
  chats: ChatsService;
  events: EventSignal;
  mailer: Mailer;
  securityLog: SecurityLog;
  accountEmail: AccountEmailService;
  /** DELETE /v1/users/me with a grace period, and the restore a sign-in makes meanwhile. */
  accountDeletion: AccountDeletion;
  /** Purges accounts whose grace has passed (hourly, stopped by close; `purgeOnce` for tests and tools). */
  accountPurge: AccountPurge;
  /** GET /v1/users/me/export. */
  accountExport: AccountExport;
  /** Webhook endpoints API and this instance's delivery worker (started here, stopped by close). */
  webhooks: Webhooks;
  /** Live streams (chat and organization events) open on this instance. */
  streams: Streams;
  /** Counts authenticated requests in memory and adds them to the usage history every USAGE_FLUSH_SECONDS (closed by close). */
  usageCounter: UsageCounter;
  usageHistory: UsageHistoryService;
  /** Each request's organization and the caller's role in it (authenticate), dropped on every instance by bus messages. */
  organizationCache: OrganizationCache;
  /** Organizations, members, invitations and the audit log (access/organizations/). */
  organizations: OrganizationsService;
  /** The OAuth 2.1 authorization server (`/oauth/*`) and the consent step the dashboard drives. */
  oauth: { server: AuthorizationServer; consent: OauthConsent; grants: OauthGrants; apps: OauthApps };
  /** The platform as an MCP server (`POST /v1/mcp`): its tools call the agents and chats services. */
  mcp: McpHandler;
  readiness: ReadinessCheck[];
  /** Releases timers and connections; the database last. */
  close(): Promise<void>;
}

export interface DependencyOverrides {
  clock?: Clock;
  /** PostgreSQL schema (tests isolate themselves this way). */
  databaseSchema?: string;
  /** Prefix for Redis keys (tests isolate themselves this way). */
  redisKeyPrefix?: string;
  logger?: Pick<Logger, 'error' | 'warn' | 'info'>;
}

interface Shared {
  bus: Bus;
  eventNotices: EventNotices;
  streamSlots: StreamSlots;
  limiter: RateLimiter;
  attempts: AttemptLimiter;
  readiness: ReadinessCheck[];
  close(): Promise<void>;
}

/** Memory (embedded) or Redis (many instances): the bus, the limiter (request budgets and attempt buckets). */
async function createShared(config: Config, clock: Clock, overrides: DependencyOverrides): Promise<Shared> {
  const memoryLimiter = createMemoryLimiter(() => clock.now());
  if (!config.redisUrl) {
    return {
      bus: createMemoryBus(), eventNotices: createMemoryEventNotices(), streamSlots: createMemoryStreamSlots(),
      limiter: memoryLimiter, attempts: memoryLimiter, readiness: [], close: () => memoryLimiter.close(),
    };
  }
  const log = overrides.logger;
  let lastConnectionError = 0;
  const onRedisError = (error: unknown) => {
    // ioredis reports every failed reconnect; one line per 10 s is enough to be seen.
    if (Date.now() - lastConnectionError > 10_000) {
      lastConnectionError = Date.now();
      log?.error({ err: error }, 'redis unavailable');
    }
  };
  const commands: Redis = await connectRedis(config.redisUrl, 'commands', onRedisError);
  const subscriber: Redis = await connectRedis(config.redisUrl, 'subscriber', onRedisError);
  // Its own connection: it subscribes and unsubscribes per organization as streams open and close.
  const liveSubscriber: Redis = await connectRedis(config.redisUrl, 'subscriber', onRedisError);
  const prefix = overrides.redisKeyPrefix ?? 'gatehouse:';
  const fallbackNotice = (error: unknown) => log?.error({ err: error }, 'redis limiter failed: limiting per instance until it is back');
  const limiter = withFallback(createRedisLimiter(commands, prefix, () => clock.now()), memoryLimiter, fallbackNotice);
  return {
    bus: await createRedisBus({ publisher: commands, subscriber, onError: onRedisError }),
    eventNotices: createRedisEventNotices({ publisher: commands, subscriber: liveSubscriber, prefix, onError: onRedisError }),
    streamSlots: createRedisStreamSlots({ redis: commands, prefix, now: () => clock.now(), onError: onRedisError }),
    limiter, attempts: limiter,
    readiness: [{ name: 'redis', check: async () => void (await commands.ping()) }],
    async close() {
      await memoryLimiter.close();
      subscriber.disconnect();
      liveSubscriber.disconnect();
      commands.disconnect();
    },
  };
}

export async function createDependencies(config: Config, overrides: DependencyOverrides = {}): Promise<Dependencies> {
  const clock = overrides.clock ?? systemClock;
  const onError = (error: unknown) => overrides.logger?.error({ err: error }, 'background task failed');
  // MAIL_TEMPLATES_DIR is a setting: a bad folder stops the start before the database is opened or migrated.
  const mails = mailTemplates(config.productName, config.mailTemplatesDir === undefined ? undefined : loadMailOverrides(config.mailTemplatesDir));
  const database = await openDatabase({ url: config.databaseUrl, schema: overrides.databaseSchema });
  let shared: Shared | undefined;
  try {
    await migrateToLatest(database);
    shared = await createShared(config, clock, overrides);
    const { bus, limiter, attempts } = shared;
    const keyRing = await createKeyRing({ db: database.db, clock, secret: config.secret, accessTokenTtl: config.accessTokenTtl });
    const accessTokens = createAccessTokens({ keyRing, clock, issuer: config.publicUrl, ttlSeconds: config.accessTokenTtl });
    const revocations = createRevocationList(bus, () => clock.now());
    const hasher = await createPasswordHasher();
    const securityLog = createSecurityLog({ db: database.db, clock, onError });
    // Wakes this instance's webhook worker after any transaction that recorded events.
    const events = createEventSignal();
    const oauthGrants = createOauthGrants({ db: database.db, clock, revocations, accessTokenTtl: config.accessTokenTtl, securityLog, onEvent: events.committed });
    const sessions = createSessionsService({
      sessions: createSessionsRepository(database.db, database.dialect), accessTokens, revocations, clock,
      accessTokenTtl: config.accessTokenTtl, refreshTokenTtl: config.refreshTokenTtl,
      onRefreshTokenReuse: ({ userId, sessionId, client }) => void securityLog.record(userId, 'refresh_token_reused', client, { session_id: sessionId }),
      onEvent: events.committed,
      endAppGrants: (userId) => oauthGrants.revokeAllOf(userId),
    });
    const loadRecentRevocations = () => Promise.all([sessions.loadRecentRevocations(), oauthGrants.loadRecentRevocations()]);
    await loadRecentRevocations();
    // Messages sent while our subscription was down are lost: reload what they would have said.
    bus.onReconnect(() => void loadRecentRevocations().catch(onError));
    const usersRepository = createUsersRepository(database.db);
    const accounts = createAccountCache({ users: usersRepository, bus, clock });
    const organizationCache = createOrganizationCache({ organizations: createOrganizationsRepository(database.db), bus, clock });
    const apiKeysRepository = createApiKeysRepository(database.db);
    const apiKeys = createApiKeysService({ repo: apiKeysRepository, dialect: database.dialect, bus, clock, maxActiveKeys: config.caps.apiKeysPerOrganization, onEvent: events.committed });
    const apiKeyVerifier = createApiKeyVerifier({ repo: apiKeysRepository, bus, clock, onError });
    const users = createUsersService({
      createPersonalOrganization,
      users: usersRepository, sessions, accounts, hasher, clock, recentSignInSeconds: config.mfa.stepUpSeconds, onEvent: events.committed, attempts, maxFailures: config.loginMaxFailures,
      securityLog,
    });
    const mailer = createMailer(config, (entry, msg) => overrides.logger?.info({ mail: entry }, msg));
    const emailTokens = createEmailTokens({ db: database.db, clock });
    const accountEmail = createAccountEmailService({
      mails,
      db: database.db, clock, publicUrl: config.publicUrl, appLinkUrl: config.appLinkUrl, mailer, tokens: emailTokens,
      hasher, sessions, apiKeys, accounts, attempts, securityLog, onError, onEvent: events.committed,
    });
    const accountPurge = createAccountPurge({
      users: usersRepository, dialect: database.dialect, sessions, apiKeys, accounts, organizations: organizationCache, clock, onError,
      warn: (detail, message) => overrides.logger?.warn(detail, message),
      notifyCalledOff: accountEmail.notifyDeletionCalledOff, guestRetentionDays: config.guestRetentionDays,
    });
    accountPurge.start();
    const accountDeletion = createAccountDeletion({
      users: usersRepository, confirmIdentity: users.confirmIdentity, sessions, apiKeys, tokens: emailTokens, accounts, purge: accountPurge, securityLog, clock,
      notify: { deletionScheduled: accountEmail.notifyDeletionScheduled, restored: accountEmail.notifyRestored }, graceDays: config.accountDeletionGraceDays,
    });
    const restoreAccount = accountDeletion.restoreOnSignIn;
    const mfa = createMfaService({
      repo: createMfaRepository(database.db), users: usersRepository, sessions, attempts, securityLog, clock, secret: config.secret, confirmPassword: users.confirmPassword, confirmOwner: users.confirmOwner,
      maxFailures: config.loginMaxFailures, stepUpSeconds: config.mfa.stepUpSeconds, totpIssuer: config.mfa.totpIssuer, onEvent: events.committed,
      notify: accountEmail.notifySecurityChange, restoreAccount,
      // Late-bound: the identities service asks the mfa service for challenges.
      linkPending: (user, pending, client) => identities.linkPending(user, pending, client),
    });
    const passkeysRepository = createPasskeysRepository(database.db);
    const passkeys = createPasskeysService({
      repo: passkeysRepository, confirmOwner: users.confirmOwner, users: usersRepository, sessions, securityLog, clock, dialect: database.dialect, webauthn: config.webauthn,
      requireEmailVerification: config.requireEmailVerification, onEvent: events.committed, notify: accountEmail.notifySecurityChange, restoreAccount,
    });
    const guests = createGuests({
      db: database.db, clock, enabled: config.anonymousSignIn, sessions, hasher, attempts, accounts, securityLog, createPersonalOrganization,
      sendVerification: accountEmail.sendVerification, onEvent: events.committed,
    });
    const identities = createIdentitiesService({
      guests, accounts,
      createPersonalOrganization,
      repo: createIdentitiesRepository(database.db), users: usersRepository, sessions, mfa, securityLog, clock,
      providers: createProviderClients(config.oidcProviders, (id) => `${config.publicUrl}/v1/auth/oidc/${id}/callback`),
      isAllowedRedirect: redirectUriChecker(config), requireEmailVerification: config.requireEmailVerification, confirmOwner: users.confirmOwner,
      dialect: database.dialect, onEvent: events.committed, notify: accountEmail.notifySecurityChange,
      warn: (detail, message) => overrides.logger?.warn(detail, message), restoreAccount,
    });
    const login = createLoginService({
      users: usersRepository, sessions, hasher, attempts, securityLog, mfa, restoreAccount,
      maxFailures: config.loginMaxFailures, requireEmailVerification: config.requireEmailVerification,
    });
    const passwordless = createPasswordlessService({
      db: database.db, clock, users: usersRepository, sessions, mfa, attempts, maxFailures: config.loginMaxFailures, securityLog, accounts, mailer, mails,
      link: mailLinks(config), requireEmailVerification: config.requireEmailVerification, createPersonalOrganization, apiKeys, restoreAccount,
      onEvent: events.committed, onError,
    });
    const admin = createAdminService({ db: database.db, accounts, organizations: organizationCache, sessions, securityLog, clock });
    const agents = createAgentsService({ db: database.db, dialect: database.dialect, clock, caps: config.caps, onEvent: events.committed });
    const chats = createChatsService({ db: database.db, dialect: database.dialect, clock, caps: config.caps, onEvent: events.committed });
    const webhooks = createWebhooks({ db: database.db, dialect: database.dialect, clock, config, events, attempts, onError });
    webhooks.worker.start();
    const streams = createStreams({
      db: database.db, dialect: database.dialect, bus, accounts, organizations: organizationCache, clock, events, notices: shared.eventNotices, slots: shared.streamSlots,
      heartbeatSeconds: config.streamHeartbeatSeconds, onError,
    });
    const organizations = createOrganizationsService({
      db: database.db, dialect: database.dialect, bus, clock, cache: organizationCache, mailer, mailLink: mailLinks(config), mails, attempts, onEvent: events.committed, onError,
    });
    const eventRetention = createEventRetention({ db: database.db, clock, onError });
    eventRetention.start();
    const usageRepository = createUsageHistoryRepository(database.db, database.dialect);
    const usageCounter = createUsageCounter({ repo: usageRepository, clock, flushMs: config.usageFlushSeconds * 1000, onError });
    const usageHistory = createUsageHistoryService({ repo: usageRepository, counter: usageCounter, clock, onError });
    const usageRetention = createUsageRetention({ repo: usageRepository, clock, onError });
    usageRetention.start();
    const accountExport = createAccountExport({ db: database.db, clock, attempts, securityLog, passkeys, identities });
    const oauthServer = createAuthorizationServer({
      db: database.db, clock, keyRing, accounts, publicUrl: config.publicUrl, productName: config.productName, secret: config.secret, accessTokenTtl: config.accessTokenTtl, refreshTokenTtl: config.refreshTokenTtl, onError, attempts,
      trustProxy: config.trustProxy, onGrantRevoked: oauthGrants.endGrant,
      ...(config.oauthDynamicClientRegistration ? {
        clientDocuments: {
          allowPrivate: config.webhookAllowPrivate,
          load: createClientMetadataDocuments({ db: database.db, clock, allowPrivate: config.webhookAllowPrivate, warn: (detail, message) => overrides.logger?.warn(detail, message) }).load,
        },
      } : {}),
      errorPage: (problem) => ({ html: problemPageHtml(problem, config.publicUrl), contentSecurityPolicy: STATIC_PAGE_CSP }),
    });
    oauthServer.sweep.start();
    const oauth = {
      server: oauthServer,
      consent: createOauthConsent({ server: oauthServer, db: database.db, clock, accounts, organizations: organizationCache, securityLog, onEvent: events.committed }),
      grants: oauthGrants,
      apps: createOauthApps({ db: database.db, clock, secret: config.secret, grants: oauthGrants }),
    };
    const verification = createVerificationService({ apiKeys: apiKeyVerifier, keyUses: apiKeys, accessTokens, revocations, accounts, organizations: organizationCache, limiter, usage: usageCounter, clock });
    // Another instance may rotate the signing key; pick it up well within a token lifetime.
    const keyReload = setInterval(() => void keyRing.reload().catch(onError), 60_000);
    keyReload.unref();
    const sharedHandle = shared;
    return {
      config, clock, database, bus, keyRing, accessTokens, revocations, attempts, limiter, hasher, accounts,
      users, sessions, login, passwordless, guests, mfa, passkeys, identities, apiKeys, apiKeyVerifier, verification, admin, agents, chats, events, webhooks, streams, mailer, securityLog, accountEmail,
      accountDeletion, accountPurge, accountExport,
      usageCounter, usageHistory, organizationCache, organizations, oauth,
      mcp: createMcpHandler({ services: { agents, chats }, publicUrl: config.publicUrl, version: SERVICE_VERSION, onError }),
      readiness: [{ name: 'database', check: () => database.ping() }, ...shared.readiness],
      async close() {
        await webhooks.worker.stop(); // first: it hands unfinished claims back through the database
        await streams.close();
        eventRetention.stop();
        usageRetention.stop();
        oauth.server.sweep.stop();
        accountPurge.stop();
        clearInterval(keyReload);
        await apiKeyVerifier.close();
        await usageCounter.close(); // its last counts, before the database closes
        accessTokens.close();
        await mailer.close();
        await revocations.close();
        await sharedHandle.bus.close();
        await sharedHandle.close();
        await database.close();
      },
    };
  } catch (error) {
    await shared?.close().catch(() => {});
    await database.close().catch(() => {});
    throw error;
  }
}
