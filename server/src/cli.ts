import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from './config.js';
import { systemClock, isoTime } from './kernel/clock.js';
import { migrateToLatest, openDatabase } from './kernel/db/database.js';
import { AppError } from './kernel/errors.js';
import { changeTier, isTier, limitsFor, TIERS } from './kernel/access-terms/tiers.js';
import type { Operator, OrganizationRow } from './access/index.js';
import { isId } from './kernel/ids.js';
import type { Kysely } from 'kysely';
import type { Database } from './kernel/db/schema.js';
import type { BusMessage } from './kernel/bus.js';

/** The contexts load only for the command that needs them: `--help` and usage errors stay instant. */
const identity = () => import('./identity/index.js');
const access = () => import('./access/index.js');

/** Running instances hear of a command's change through Redis only (one instance without it). */
const INSTANCES_NOTE = `With REDIS_URL set, running instances act on it at once. Without it this command cannot reach a running
instance: it sees the change when its cached copy expires (an account within 5 s, an API key within
5 minutes), and live streams it holds stay open; the API, served by the instance itself, acts at once.`;

/** What `--help` prints, per command (`main`: the list); docs/reference/cli.md is generated from it. */
export const HELP: Record<string, string> = {
  main: `Usage: npx gatehouse <command> [options]

Commands:
  serve                                 run the HTTP service (PORT, DATABASE_URL, ...)
  migrate                               apply pending database migrations and exit
  users list [--tier T] [--email TEXT]  list accounts, newest first [--limit N] [--json]
  users set-tier <email|org_id> <tier>  set the tier of an account's personal organization, or of any organization: ${TIERS.join(', ')}
        [--per-minute N] [--per-day N] [--streams N]  custom limits (enterprise tier only)
  users grant-admin <email>             give an account the admin role
  users reset-mfa <email>               turn off an account's second factor (lost phone and recovery codes)
  users release-provider-addresses <provider>  give up the addresses a provider not trusted for them (link_by_email: false) made its accounts hold
  users disable <email|user_id>         sign an account out everywhere and refuse its logins, tokens and API keys
  users enable <email|user_id>          let a disabled account sign in again
  keys revoke <key_id>                  revoke any account's API key by its id
  keys rotate                           add a new signing key; old ones stay in JWKS until their tokens expire

Every command reads the same environment as the server. Run "npx gatehouse <command> --help" for details.`,
  serve: 'Usage: npx gatehouse serve\n\nRuns the service on PORT (default 8080). Migrations run at start.',
  migrate: 'Usage: npx gatehouse migrate\n\nApplies pending migrations to DATABASE_URL and prints their names.',
  'users list': `Usage: npx gatehouse users list [--tier <tier>] [--email <text>] [--limit N] [--json]\n\nLists accounts, newest first: id, email, tier, limits (custom ones marked *), role, flags, creation time.\n--tier keeps one tier (${TIERS.join(', ')}); --email keeps addresses containing the text, in any letter case;\n--limit caps the rows (default 100, at most 10000); --json prints one JSON object per line.`,
  'users set-tier': `Usage: npx gatehouse users set-tier <email|org_id> <tier> [--per-minute N] [--per-day N] [--streams N]\n\nAn email sets the tier of that account's personal organization; an org_… id, of that organization.\nTiers: ${TIERS.join(', ')}. --per-minute, --per-day and --streams (live streams open at once) set custom\nlimits, for the enterprise tier only; a limit without one keeps the tier's default. Any other tier uses its defaults: moving an account\nto it drops the custom limits it had.`,
  'users grant-admin': 'Usage: npx gatehouse users grant-admin <email>\n\nGives the account the admin role (admin API).',
  'users reset-mfa': 'Usage: npx gatehouse users reset-mfa <email>\n\nTurns off the account\'s TOTP factor and deletes its recovery codes, for an owner who lost both\n(check who is asking first). The password alone signs in again; the security log and the\nuser.mfa.disabled webhook event record it.',
  'users release-provider-addresses': `Usage: npx gatehouse users release-provider-addresses <provider>\n\nFor a sign-in provider configured (or now configured) link_by_email: false: every account whose address\nis confirmed, that has no password and whose only ways in are identities of <provider> (the id in\nOIDC_PROVIDERS) gives its address up, as a registration takes an address such a provider claimed: it\nholds <id>@unclaimed.invalid, unconfirmed, keeps its provider sign-in, and sets a real address by a\nchange of email. The address's owner can then register it. Accounts made before such addresses were\nheld unconfirmed cannot be told apart otherwise (the provider's trust is configuration, not data).\nEach account's security log records it (email_changed, reason released_by_operator). ${INSTANCES_NOTE}`,
  'users disable': `Usage: npx gatehouse users disable <email|user_id>\n\nWhat the admin API's PATCH /v1/admin/users/{id} {"disabled": true} does: the account's sessions are\nrevoked, its logins, tokens and API keys refused (403 account_disabled) and its live streams closed.\n${INSTANCES_NOTE}\nThe account's security log records it (account_updated_by_admin, by operator). "users enable" undoes it.`,
  'users enable': `Usage: npx gatehouse users enable <email|user_id>\n\nLets a disabled account sign in again, and its API keys work again; the sessions revoked when it was\ndisabled stay revoked. ${INSTANCES_NOTE}`,
  'keys revoke': `Usage: npx gatehouse keys revoke <key_id>\n\nRevokes the API key with this id (key_…), whoever holds it, as DELETE /v1/api-keys/{id} does: its\norganization gets the key back in its count, its audit log and the api_key.revoked webhook event record\nit, and the owner's security log shows it (by operator). ${INSTANCES_NOTE}\nThe key's secret (gth_…) is not its id: GET /v1/api-keys lists the ids.`,
  'keys rotate': 'Usage: npx gatehouse keys rotate\n\nCreates a new EdDSA signing key and retires the current one. Running instances pick it up within a minute; tokens signed by the old key stay valid until they expire.',
};

class UsageError extends Error {}

/** The options each command takes (parseArgs knows them all; a command refuses the others). */
const COMMAND_OPTIONS: Record<string, string[]> = {
  'users list': ['tier', 'email', 'limit', 'json'],
  'users set-tier': ['per-minute', 'per-day', 'streams'],
};

/**
 * Running instances cache accounts for up to 5 s. With Redis, tell them at once, the same way
 * the admin API does; without it they pick the change up when their cache entry expires.
 */
async function announceAccountChange(config: Config, userId: string): Promise<void> {
  await announce(config, { type: 'account-changed', userId });
}

async function announce(config: Config, message: BusMessage): Promise<void> {
  if (!config.redisUrl) return;
  const { connectRedis } = await import('./kernel/redis.js');
  const redis = await connectRedis(config.redisUrl, 'commands');
  try {
    const { publishOnce } = await import('./kernel/bus.js');
    await publishOnce(redis, message);
  } finally {
    redis.disconnect();
  }
}

/** The limit columns are 32-bit integers (PostgreSQL `integer`). */
const MAX_LIMIT = 2_147_483_647;

function positiveInt(value: string | undefined, flag: string): number | null {
  if (value === undefined) return null;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > MAX_LIMIT) {
    throw new UsageError(`${flag} must be a whole number from 1 to ${MAX_LIMIT}, got "${value}"`);
  }
  return Number(value);
}

async function withDatabase<T>(config: Config, run: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<T>): Promise<T> {
  const handle = await openDatabase({ url: config.databaseUrl });
  try {
    await migrateToLatest(handle);
    return await run(handle);
  } finally {
    await handle.close();
  }
}

async function setTier(config: Config, args: string[], flags: { 'per-minute'?: string; 'per-day'?: string; streams?: string }): Promise<string> {
  const [email, tier] = args;
  if (!email || !tier) throw new UsageError(HELP['users set-tier']!);
  if (!isTier(tier)) throw new UsageError(`unknown tier "${tier}"; use one of ${TIERS.join(', ')}`);
  const perMinute = positiveInt(flags['per-minute'], '--per-minute');
  const perDay = positiveInt(flags['per-day'], '--per-day');
  const streams = positiveInt(flags.streams, '--streams');
  return withDatabase(config, async ({ db }) => {
    const target = await planOf(db, email);
    // The admin API's rule (custom limits for enterprise only), so the two never disagree.
    let next;
    try {
      next = changeTier(target.plan, { tier, limits: { per_minute: perMinute, per_day: perDay, streams } });
    } catch (error) {
      if (error instanceof AppError) throw new UsageError(`custom limits (--per-minute, --per-day, --streams) are for the enterprise tier, not ${tier}`);
      throw error;
    }
    const { createOrganizationsRepository } = await access();
    await createOrganizationsRepository(db).setPlan(target.plan.id, next, isoTime(Date.now()));
    await announce(config, { type: 'organization-changed', orgId: target.plan.id });
    const custom = next.limit_per_minute !== null || next.limit_per_day !== null || next.limit_streams !== null;
    const streamsNote = next.limit_streams !== null ? `, streams ${next.limit_streams}` : '';
    return `${target.name} is now ${tier}${custom ? ` (per minute ${next.limit_per_minute ?? 'tier default'}, per day ${next.limit_per_day ?? 'tier default'}${streamsNote})` : ''}`;
  });
}

/** The organization `emailOrOrgId` names: an account's personal one, or the one with that id. */
async function planOf(db: Kysely<Database>, emailOrOrgId: string): Promise<{ name: string; plan: OrganizationRow }> {
  const [{ createOrganizationsRepository }, { createUsersRepository }] = await Promise.all([access(), identity()]);
  if (isId('organization', emailOrOrgId)) {
    const org = await createOrganizationsRepository(db).findById(emailOrOrgId);
    if (!org) throw new UsageError(`no organization with id ${emailOrOrgId}`);
    return { name: `${org.name} (${org.id})`, plan: org };
  }
  const user = await createUsersRepository(db).findByEmail(emailOrOrgId);
  const org = user && (await createOrganizationsRepository(db).findById(user.personal_org_id));
  if (!user || !org) throw new UsageError(`no account with email ${emailOrOrgId}`);
  return { name: user.email, plan: org };
}

async function listUsers(config: Config, flags: { tier?: string; email?: string; limit?: string; json?: boolean }): Promise<string> {
  if (flags.tier !== undefined && !isTier(flags.tier)) throw new UsageError(`unknown tier "${flags.tier}"; use one of ${TIERS.join(', ')}`);
  const limit = positiveInt(flags.limit, '--limit') ?? 100;
  if (limit > 10_000) throw new UsageError(`--limit must be at most 10000, got "${limit}"`);
  const { createUsersRepository } = await identity();
  const rows = await withDatabase(config, ({ db }) => createUsersRepository(db).listWithPlan({ tier: flags.tier, emailContains: flags.email, limit }));
  if (flags.json) {
    return rows.map((u) => JSON.stringify({
      id: u.id, email: u.email, name: u.name, tier: u.tier, role: u.role, limits: limitsFor(u),
      custom_limits: u.limit_per_minute !== null || u.limit_per_day !== null, email_verified: u.email_verified === 1, disabled: u.disabled === 1, created_at: u.created_at,
    })).join('\n');
  }
  if (rows.length === 0) return 'no accounts match';
  const table = [['ID', 'EMAIL', 'TIER', 'PER MINUTE', 'PER DAY', 'ROLE', 'FLAGS', 'CREATED']];
  for (const u of rows) {
    const limits = limitsFor(u);
    const flagsOf = [u.email_verified ? 'verified' : 'unverified', ...(u.disabled ? ['disabled'] : [])].join(',');
    table.push([
      u.id, u.email, u.tier, `${limits.per_minute}${u.limit_per_minute !== null ? '*' : ''}`, `${limits.per_day}${u.limit_per_day !== null ? '*' : ''}`, u.role, flagsOf, u.created_at,
    ]);
  }
  const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  const lines = table.map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd());
  return `${lines.join('\n')}${rows.length === limit ? `\n(first ${limit}; --limit shows more)` : ''}`;
}

async function resetMfa(config: Config, args: string[]): Promise<string> {
  const [email] = args;
  if (!email) throw new UsageError(HELP['users reset-mfa']!);
  const { createSecurityLog, createUsersRepository, removeSecondFactor } = await identity();
  return withDatabase(config, async ({ db }) => {
    const user = await createUsersRepository(db).findByEmail(email);
    if (!user) throw new UsageError(`no account with email ${email}`);
    const securityLog = createSecurityLog({ db, clock: systemClock, onError: (error) => console.error(`gatehouse: the security log entry failed: ${(error as Error).message}`) });
    // A running instance's delivery worker finds the event on its next poll (the CLI cannot wake it).
    const { removed } = await removeSecondFactor({ db, clock: systemClock, securityLog }, user.id, { by: 'operator' });
    return removed === 'enabled' ? `${user.email}: two-step verification is off; the password alone signs in` : `${user.email} has no second factor; nothing changed`;
  });
}

/** What an operator command did; `changed`: it changed something running instances had to hear of. */
interface Outcome {
  message: string;
  changed: boolean;
}

/**
 * The API's own services for one command (access/admin/operator.ts), on the database the
 * environment names; running instances are told through Redis when REDIS_URL is set. A message
 * Redis did not take fails the command (exit 1) after it says what it did.
 */
async function withOperator(config: Config, run: (operator: Operator) => Promise<Outcome>): Promise<string> {
  return withDatabase(config, async ({ db, dialect }) => {
    const { createOperator } = await access();
    const operator = createOperator({
      db, dialect, redisUrl: config.redisUrl, clock: systemClock, accessTokenTtl: config.accessTokenTtl, refreshTokenTtl: config.refreshTokenTtl,
      maxActiveKeys: config.caps.apiKeysPerOrganization, onError: (error) => console.error(`gatehouse: the security log entry failed: ${(error as Error).message}`),
    });
    try {
      const { message, changed } = await run(operator);
      if (operator.undelivered.length > 0) {
        console.log(message);
        throw new Error(`running instances were not told through Redis (${operator.undelivered.join('; ')}); they see the change when their cached copies expire`);
      }
      if (changed && !operator.reachesInstances) console.error('note: REDIS_URL is not set, so running instances were not told: see "--help"');
      return message;
    } finally {
      await operator.close();
    }
  });
}

async function releaseAddresses(config: Config, args: string[]): Promise<string> {
  const [provider, ...extra] = args;
  if (!provider || extra.length > 0) throw new UsageError(HELP['users release-provider-addresses']!);
  return withOperator(config, async (operator) => {
    const count = await operator.releaseProviderAddresses(provider);
    return { changed: count > 0, message: `released ${count} ${count === 1 ? 'address' : 'addresses'} held on the word of provider ${provider}` };
  });
}

async function setDisabled(config: Config, args: string[], disabled: boolean): Promise<string> {
  const [who, ...extra] = args;
  if (!who || extra.length > 0) throw new UsageError(HELP[disabled ? 'users disable' : 'users enable']!);
  return withOperator(config, async (operator) => {
    const user = await operator.findUser(who);
    if (!user) throw new UsageError(`no account with ${isId('user', who) ? 'id' : 'email'} ${who}`);
    if ((user.disabled === 1) === disabled) return { changed: false, message: `${user.email} is ${disabled ? 'already disabled' : 'not disabled'}; nothing changed` };
    await operator.setDisabled(user.id, disabled);
    return {
      changed: true,
      message: disabled ? `${user.email} (${user.id}) is disabled: signed out everywhere; its logins, tokens and API keys are refused` : `${user.email} (${user.id}) is enabled: it can sign in again`,
    };
  });
}

async function revokeKey(config: Config, args: string[]): Promise<string> {
  const [id, ...extra] = args;
  if (!id || extra.length > 0) throw new UsageError(HELP['keys revoke']!);
  // Never echo a secret back (terminal scrollback, CI logs).
  const { API_KEY_PREFIX } = await access();
  if (id.startsWith(API_KEY_PREFIX)) throw new UsageError(`that is an API key's secret, not its id: pass the key_… id (GET /v1/api-keys lists them)`);
  if (!isId('apiKey', id)) throw new UsageError(`"${id}" is not an API key id (key_…)`);
  return withOperator(config, async (operator) => {
    const key = await operator.revokeApiKey(id);
    if (!key) throw new UsageError(`no live API key with id ${id} (unknown, or already revoked)`);
    const owner = await operator.findUser(key.user_id);
    return { changed: true, message: `revoked API key ${key.id} "${key.name}" (${key.prefix}…${key.last_four}) of ${owner?.email ?? key.user_id} in organization ${key.org_id}` };
  });
}

async function grantAdmin(config: Config, args: string[]): Promise<string> {
  const [email] = args;
  if (!email) throw new UsageError(HELP['users grant-admin']!);
  const { createUsersRepository } = await identity();
  return withDatabase(config, async ({ db }) => {
    const users = createUsersRepository(db);
    const user = await users.findByEmail(email);
    if (!user) throw new UsageError(`no account with email ${email}`);
    await users.update(user.id, { role: 'admin', updated_at: isoTime(Date.now()) });
    await announceAccountChange(config, user.id);
    return `${user.email} is now an admin`;
  });
}

export async function runCli(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      help: { type: 'boolean', short: 'h' }, 'per-minute': { type: 'string' }, 'per-day': { type: 'string' }, streams: { type: 'string' },
      tier: { type: 'string' }, email: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' },
    },
  });
  const [command, sub, ...rest] = positionals;
  const name = command === 'users' || command === 'keys' ? `${command} ${sub ?? ''}`.trim() : (command ?? 'main');
  if (values.help || !command) {
    console.log(HELP[name] ?? HELP.main);
    return 0;
  }
  const allowed = COMMAND_OPTIONS[name] ?? [];
  const misplaced = Object.keys(values).filter((option) => option !== 'help' && !allowed.includes(option));
  if (misplaced.length > 0) throw new UsageError(`"${name}" takes no --${misplaced[0]} option\n\n${HELP[name] ?? HELP.main}`);
  const config = loadConfig();
  // `serve` logs them through its logger; any other command says them on stderr.
  if (name !== 'serve') for (const warning of config.warnings) console.error(warning);
  switch (name) {
    case 'serve': {
      const { serve } = await import('./main.js');
      await serve(config);
      return -1; // keep running
    }
    case 'migrate': {
      const handle = await openDatabase({ url: config.databaseUrl });
      const names = await migrateToLatest(handle).finally(() => handle.close());
      console.log(names.length ? `applied: ${names.join(', ')}` : 'database is up to date');
      return 0;
    }
    case 'users list':
      console.log(await listUsers(config, values));
      return 0;
    case 'users set-tier':
      console.log(await setTier(config, rest, values));
      return 0;
    case 'users grant-admin':
      console.log(await grantAdmin(config, rest));
      return 0;
    case 'users reset-mfa':
      console.log(await resetMfa(config, rest));
      return 0;
    case 'users release-provider-addresses':
      console.log(await releaseAddresses(config, rest));
      return 0;
    case 'users disable':
    case 'users enable':
      console.log(await setDisabled(config, rest, name === 'users disable'));
      return 0;
    case 'keys revoke':
      console.log(await revokeKey(config, rest));
      return 0;
    case 'keys rotate': {
      const { rotateSigningKeys } = await identity();
      const kid = await withDatabase(config, ({ db }) => rotateSigningKeys(db, systemClock, config.secret));
      console.log(`new signing key ${kid}; instances switch to it within a minute`);
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${positionals.join(' ')}"\n\n${HELP.main}`);
  }
}

export async function main(argv: string[]): Promise<void> {
  try {
    const code = await runCli(argv);
    if (code >= 0) process.exitCode = code;
  } catch (error) {
    if (error instanceof ConfigError || error instanceof UsageError) {
      console.error(error.message);
      process.exitCode = 2;
      return;
    }
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`${(error as Error).message}\n\n${HELP.main}`);
      process.exitCode = 2;
      return;
    }
    console.error(`gatehouse: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}
