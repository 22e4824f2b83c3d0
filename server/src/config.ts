import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';

/**
 * The only reader of process.env. Every variable docs/reference/configuration.md lists is declared here with its default;
 * a bad value stops the start with one line naming the variable.
 */
const IntString = (min: number, max: number) => ({ min, max });

const INTS = {
  PORT: IntString(0, 65535),
  METRICS_PORT: IntString(1, 65535),
  ACCESS_TOKEN_TTL: IntString(60, 86_400),
  REFRESH_TOKEN_TTL: IntString(300, 31_536_000),
  MAX_BODY_BYTES: IntString(1024, 104_857_600),
  PUBLIC_RATE_LIMIT_PER_MINUTE: IntString(1, 1_000_000),
  LOGIN_MAX_FAILURES: IntString(1, 1_000_000),
  ACCOUNT_RATE_LIMIT_PER_MINUTE: IntString(1, 1_000_000),
  HEADERS_TIMEOUT: IntString(1, 3_600),
  REQUEST_TIMEOUT: IntString(1, 3_600),
  AGENTS_PER_ORGANIZATION: IntString(1, 10_000_000),
  CHATS_PER_ORGANIZATION: IntString(1, 10_000_000),
  MESSAGES_PER_CHAT: IntString(1, 10_000_000),
  API_KEYS_PER_ORGANIZATION: IntString(1, 100_000),
  WEBHOOKS_PER_ORGANIZATION: IntString(1, 10_000),
  MFA_STEP_UP_SECONDS: IntString(30, 86_400),
  STREAM_HEARTBEAT_SECONDS: IntString(1, 300),
  USAGE_FLUSH_SECONDS: IntString(1, 300),
  ACCOUNT_DELETION_GRACE_DAYS: IntString(0, 3650),
  GUEST_RETENTION_DAYS: IntString(1, 3650),
} as const;

/**
 * Variables renamed since a release read them, new name → old: the old name is still read when
 * the new one is not set, and the start warns of it once (`warnings`). Both set: the new one wins.
 */
const RENAMED_VARIABLES: Partial<Record<keyof typeof INTS, string>> = {
  AGENTS_PER_ORGANIZATION: 'AGENTS_PER_ACCOUNT',
  CHATS_PER_ORGANIZATION: 'CHATS_PER_ACCOUNT',
  API_KEYS_PER_ORGANIZATION: 'API_KEYS_PER_ACCOUNT',
  WEBHOOKS_PER_ORGANIZATION: 'WEBHOOKS_PER_ACCOUNT',
};

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const OidcProviderConfig = Type.Object({
  /** In URLs (`/v1/auth/oidc/{id}/…`) and stored with each linked identity: never rename one in use. */
  id: Type.String(),
  /** Shown on sign-in buttons. */
  name: Type.String(),
  /**
   * `oidc`: any OpenID Connect issuer (discovery, ID token); `github`: GitHub's OAuth 2 and its
   * REST API; `apple` and `google`: OpenID Connect with the issuer and defaults of Sign in with
   * Apple and Google.
   */
  type: Type.Union([Type.Literal('oidc'), Type.Literal('github'), Type.Literal('apple'), Type.Literal('google')]),
  /** The OIDC issuer, or for GitHub its web base (https://github.com, or a GitHub Enterprise host). */
  issuer: Type.String(),
  /** For the browser flow; null (with the secret) when the provider is only for native ID tokens. */
  clientId: Type.Union([Type.String(), Type.Null()]),
  clientSecret: Type.Union([Type.String(), Type.Null()]),
  /**
   * The audiences a native sign-in's ID token may carry (POST /v1/auth/id-token): an iOS app's
   * bundle id (Apple), the app's OAuth client ids (Google). Empty: the provider takes no ID tokens.
   */
  nativeClientIds: Type.Array(Type.String()),
  scopes: Type.Array(Type.String()),
  /** Extra authorization-request parameters (Apple: `response_mode: form_post`). */
  authorizationParams: Type.Record(Type.String(), Type.String()),
  /** Whether a verified email from this provider may link to an existing account with that address (off for issuers whose users or tenants set their own addresses). */
  linkByEmail: Type.Boolean(),
});
export type OidcProviderConfig = Static<typeof OidcProviderConfig>;

export const Config = Type.Object({
  port: Type.Integer(),
  host: Type.String(),
  publicUrl: Type.String(),
  databaseUrl: Type.String(),
  redisUrl: Type.Optional(Type.String()),
  accessTokenTtl: Type.Integer(),
  refreshTokenTtl: Type.Integer(),
  maxBodyBytes: Type.Integer(),
  publicRateLimitPerMinute: Type.Integer(),
  loginMaxFailures: Type.Integer(),
  /** Requests per minute per account (and ten times that per IP) on the routes that spend no budget. */
  accountRateLimitPerMinute: Type.Integer(),
  /** Seconds a client gets to send its headers (slowloris), then the whole request. */
  headersTimeout: Type.Integer(),
  requestTimeout: Type.Integer(),
  trustProxy: Type.Boolean(),
  corsOrigins: Type.Array(Type.String()),
  smtpUrl: Type.Optional(Type.String()),
  /** PRODUCT_NAME: what the service's users know it as; every mail, the authenticator label and the pages say it. */
  productName: Type.String(),
  mailFrom: Type.String(),
  /** MAIL_TEMPLATES_DIR: a folder whose files replace mails' subjects, text and HTML (identity/email/mail-template-files.ts). */
  mailTemplatesDir: Type.Optional(Type.String()),
  webhookAllowPrivate: Type.Boolean(),
  /** OAUTH_DYNAMIC_CLIENT_REGISTRATION: anyone may register an OAuth app at /oauth/register (RFC 7591), as MCP clients do. */
  oauthDynamicClientRegistration: Type.Boolean(),
  webhookRetryDelays: Type.Array(Type.Integer()),
  secret: Type.Optional(Type.String()),
  requireEmailVerification: Type.Boolean(),
  /** Where mailed links send people instead of PUBLIC_URL's pages: an app's scheme (myapp://auth) or an https universal-link base. */
  appLinkUrl: Type.Optional(Type.String()),
  /** `TEAMID.bundle.id` of the iOS apps that may open this host's links (apple-app-site-association). */
  appleAppIds: Type.Array(Type.String()),
  /** The Android app that may open this host's links (assetlinks.json). */
  androidApp: Type.Optional(Type.Object({ package: Type.String(), certSha256: Type.Array(Type.String()) })),
  /** How many of each an organization may hold; past it, 422 limit_reached (access/organizations/organization-caps.ts). */
  caps: Type.Object({
    agentsPerOrganization: Type.Integer(),
    chatsPerOrganization: Type.Integer(),
    messagesPerChat: Type.Integer(),
    apiKeysPerOrganization: Type.Integer(),
    webhooksPerOrganization: Type.Integer(),
  }),
  /** Live streams (platform/streams/): seconds between heartbeat comments on an idle stream. */
  streamHeartbeatSeconds: Type.Integer({ minimum: 1 }),
  /** Usage history (access/usage/): seconds between the batches in which an instance adds its request counts to the database. */
  usageFlushSeconds: Type.Integer({ minimum: 1 }),
  /** Days between DELETE /v1/users/me and the purge; a sign-in meanwhile restores the account. 0: at once (flows/account-deletion.ts). */
  accountDeletionGraceDays: Type.Integer({ minimum: 0 }),
  /** Guest accounts (POST /v1/auth/anonymous, identity/guests) may be made. */
  anonymousSignIn: Type.Boolean(),
  /** A guest unused this many days is purged with its data. */
  guestRetentionDays: Type.Integer({ minimum: 1 }),
  /** Second factors: how long a proved factor lets a session make sensitive changes; the issuer authenticator apps show. */
  mfa: Type.Object({ stepUpSeconds: Type.Integer(), totpIssuer: Type.String() }),
  /** Passkeys: the relying party's id (a domain: PUBLIC_URL's host by default), its name, and the origins (web, or app signatures) allowed to use them. */
  webauthn: Type.Object({ rpId: Type.String(), rpName: Type.String(), origins: Type.Array(Type.String()) }),
  /** Sign-in with OpenID Connect / OAuth 2 providers (OIDC_PROVIDERS; identity/providers). */
  oidcProviders: Type.Array(OidcProviderConfig),
  /** Web apps' pages a provider sign-in may return to, exactly (besides PUBLIC_URL/oidc-callback and APP_LINK_URL). */
  oidcRedirectUris: Type.Array(Type.String()),
  /**
   * Prometheus metrics (per-route counts by status, memory, the Node version) are no business of
   * the public port: its own listener (`port` null: none) on loopback by default, and on the public
   * port only for the bearer of `token` (which the listener then asks for too).
   */
  metrics: Type.Object({ port: Type.Union([Type.Integer(), Type.Null()]), host: Type.String(), token: Type.Union([Type.String(), Type.Null()]) }),
  logLevel: Type.Union(LOG_LEVELS.map((l) => Type.Literal(l))),
  production: Type.Boolean(),
  /** What the operator should change in the environment (an old variable name): logged once at start. */
  warnings: Type.Array(Type.String()),
});
export type Config = Static<typeof Config>;

const ConfigCheck = Compile(Config);

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`config: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const isSet = (env: Env, name: string): boolean => env[name] !== undefined && env[name] !== '';

function readInt(env: Env, name: keyof typeof INTS, fallback: number): number {
  // Only the old name set: it is read, and a bad value is reported under the name the operator used.
  const oldName = RENAMED_VARIABLES[name];
  const given = !isSet(env, name) && oldName !== undefined && isSet(env, oldName) ? oldName : name;
  const raw = env[given];
  if (raw === undefined || raw === '') return fallback;
  const { min, max } = INTS[name];
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(given, `must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

/** One line per old variable name set: read in place of its new name, or ignored because the new one is set too. */
function renamedVariableWarnings(env: Env): string[] {
  return Object.entries(RENAMED_VARIABLES).flatMap(([name, oldName]) => {
    if (!isSet(env, oldName)) return [];
    return isSet(env, name)
      ? [`config: ${oldName} is an old name and is ignored: ${name} is set too and wins; remove ${oldName}`]
      : [`config: ${oldName} is an old name: set ${name} instead (${oldName}'s value is used meanwhile)`];
  });
}

function readBool(env: Env, name: string): boolean {
  const raw = (env[name] ?? '').toLowerCase();
  if (raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new ConfigError(name, `must be true or false, got "${env[name]}"`);
}

function readUrl(env: Env, name: string, fallback: string | undefined, protocols: string[]): string | undefined {
  const raw = env[name] || fallback;
  if (raw === undefined) return undefined;
  if (protocols.includes('sqlite:') && raw.startsWith('sqlite:')) return raw;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `is not a valid URL`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(name, `must start with ${protocols.join(' or ')}`);
  }
  return raw.replace(/\/+$/, '');
}

/** nodemailer reads these from SMTP_URL's query; each makes it write the SMTP conversation to stdout. */
const SMTP_LOGGING_OPTIONS = ['logger', 'debug', 'transactionLog'];

/**
 * In production no mail may reach a log: without SMTP_URL the log mailer would write every
 * password-reset and verification link to it (whoever reads the logs could take any account
 * over), and nodemailer's own logging, turned on from SMTP_URL's query, writes whole messages.
 */
function checkProductionMail(smtpUrl: string | undefined): void {
  if (!smtpUrl) {
    throw new ConfigError('SMTP_URL', 'is required when NODE_ENV=production (without it mail, reset and verification links included, would be written to the log)');
  }
  const query = new URL(smtpUrl).searchParams;
  const logging = SMTP_LOGGING_OPTIONS.find((name) => !['', '0', 'false'].includes(query.get(name) ?? 'false'));
  if (logging) throw new ConfigError('SMTP_URL', `must not turn on nodemailer's ${logging} when NODE_ENV=production (it writes messages, links included, to the log)`);
}

/** Schemes a mailed link must never use: they run code or read files instead of opening an app. */
const FORBIDDEN_LINK_SCHEMES = ['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:'];

function readAppLinkUrl(env: Env): string | undefined {
  const raw = env.APP_LINK_URL;
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('APP_LINK_URL', 'is not a valid URL (e.g. myapp://auth or https://app.example.com/auth)');
  }
  if (FORBIDDEN_LINK_SCHEMES.includes(url.protocol)) throw new ConfigError('APP_LINK_URL', `must not use ${url.protocol}`);
  if (url.search || url.hash) throw new ConfigError('APP_LINK_URL', 'must not carry a query or fragment (the token is added as ?token=)');
  // Its normal form (a lower-case scheme and host, no default port): redirect URIs are compared
  // with it in normal form, so a value written otherwise would refuse every redirect under it.
  return url.href.replace(/\/+$/, '');
}

/** Each entry an origin as browsers send it (`scheme://host[:port]`), or `*`: anything else would never match. */
function readCorsOrigins(env: Env): string[] {
  const origins = readList(env, 'CORS_ORIGINS');
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (origin !== '*' && parsed?.origin !== origin) {
      throw new ConfigError('CORS_ORIGINS', `must be comma-separated origins such as https://app.example.com (scheme, host and port only, no path or trailing slash), got "${origin}"`);
    }
  }
  return origins;
}

function readList(env: Env, name: string): string[] {
  return (env[name] ?? '').split(',').map((v) => v.trim()).filter(Boolean);
}

function readAppleAppIds(env: Env): string[] {
  const ids = readList(env, 'APPLE_APP_IDS');
  const bad = ids.find((id) => !/^[A-Z0-9]{10}\.[A-Za-z0-9][A-Za-z0-9.-]*$/.test(id));
  if (bad) throw new ConfigError('APPLE_APP_IDS', `must be comma-separated TEAMID.bundle.id values (a 10-character team id), got "${bad}"`);
  return ids;
}

function readAndroidApp(env: Env): Config['androidApp'] {
  const pkg = env.ANDROID_APP_PACKAGE || undefined;
  const prints = readList(env, 'ANDROID_CERT_SHA256');
  if (!pkg && prints.length === 0) return undefined;
  if (!pkg) throw new ConfigError('ANDROID_APP_PACKAGE', 'is required when ANDROID_CERT_SHA256 is set');
  if (!/^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/.test(pkg)) throw new ConfigError('ANDROID_APP_PACKAGE', `must be an application id such as com.example.app, got "${pkg}"`);
  if (prints.length === 0) throw new ConfigError('ANDROID_CERT_SHA256', 'is required when ANDROID_APP_PACKAGE is set (the signing certificate\'s SHA-256 fingerprint)');
  // Google's format: 32 upper-case hex bytes separated by colons; accepted with or without colons.
  const certSha256 = prints.map((print) => {
    const hex = print.replace(/:/g, '');
    if (!/^[0-9A-Fa-f]{64}$/.test(hex)) throw new ConfigError('ANDROID_CERT_SHA256', `must be SHA-256 fingerprints (64 hex digits, colons optional), got "${print}"`);
    return hex.toUpperCase().match(/../g)!.join(':');
  });
  return { package: pkg, certSha256 };
}

export function loadConfig(env: Env = process.env): Config {
  const port = readInt(env, 'PORT', 8080);
  const logLevel = (env.LOG_LEVEL || 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  const delays = (env.WEBHOOK_RETRY_DELAYS || '5,300,1800,7200,18000,36000,50400,72000,86400').split(',');
  if (delays.some((d) => !/^\d+$/.test(d.trim()))) {
    throw new ConfigError('WEBHOOK_RETRY_DELAYS', 'must be a comma-separated list of whole seconds');
  }
  const production = env.NODE_ENV === 'production';
  const secret = env.GATEHOUSE_SECRET || undefined;
  if (production && !secret) throw new ConfigError('GATEHOUSE_SECRET', 'is required when NODE_ENV=production');
  if (secret !== undefined && secret.length < 32) throw new ConfigError('GATEHOUSE_SECRET', 'must be at least 32 characters');
  const smtpUrl = readUrl(env, 'SMTP_URL', undefined, ['smtp:', 'smtps:']);
  if (production) checkProductionMail(smtpUrl);
  const requestTimeout = readInt(env, 'REQUEST_TIMEOUT', 30);
  const headersTimeout = readInt(env, 'HEADERS_TIMEOUT', 15);
  // Node silently swaps the two when the headers' is the longer; refuse that instead.
  if (headersTimeout > requestTimeout) throw new ConfigError('HEADERS_TIMEOUT', `must not exceed REQUEST_TIMEOUT (${requestTimeout}), got "${headersTimeout}"`);
  const publicUrl = readUrl(env, 'PUBLIC_URL', `http://localhost:${port}`, ['http:', 'https:'])!;
  const productName = readProductName(env);
  const config: Config = {
    port,
    host: env.HOST || '0.0.0.0',
    publicUrl,
    databaseUrl: readUrl(env, 'DATABASE_URL', 'sqlite:./data/gatehouse.db', ['sqlite:', 'postgres:', 'postgresql:'])!,
    redisUrl: readUrl(env, 'REDIS_URL', undefined, ['redis:', 'rediss:']),
    accessTokenTtl: readInt(env, 'ACCESS_TOKEN_TTL', 900),
    refreshTokenTtl: readInt(env, 'REFRESH_TOKEN_TTL', 2_592_000),
    maxBodyBytes: readInt(env, 'MAX_BODY_BYTES', 1_048_576),
    publicRateLimitPerMinute: readInt(env, 'PUBLIC_RATE_LIMIT_PER_MINUTE', 20),
    loginMaxFailures: readInt(env, 'LOGIN_MAX_FAILURES', 10),
    accountRateLimitPerMinute: readInt(env, 'ACCOUNT_RATE_LIMIT_PER_MINUTE', 600),
    headersTimeout,
    requestTimeout,
    trustProxy: readBool(env, 'TRUST_PROXY'),
    corsOrigins: readCorsOrigins(env),
    smtpUrl,
    productName,
    mailFrom: env.MAIL_FROM || `${productName} <no-reply@localhost>`,
    ...(env.MAIL_TEMPLATES_DIR ? { mailTemplatesDir: env.MAIL_TEMPLATES_DIR } : {}),
    webhookAllowPrivate: readBool(env, 'WEBHOOK_ALLOW_PRIVATE'),
    oauthDynamicClientRegistration: readBool(env, 'OAUTH_DYNAMIC_CLIENT_REGISTRATION'),
    webhookRetryDelays: delays.map((d) => Number(d.trim())),
    secret,
    requireEmailVerification: readBool(env, 'REQUIRE_EMAIL_VERIFICATION'),
    appLinkUrl: readAppLinkUrl(env),
    appleAppIds: readAppleAppIds(env),
    androidApp: readAndroidApp(env),
    caps: {
      agentsPerOrganization: readInt(env, 'AGENTS_PER_ORGANIZATION', 10_000),
      chatsPerOrganization: readInt(env, 'CHATS_PER_ORGANIZATION', 100_000),
      messagesPerChat: readInt(env, 'MESSAGES_PER_CHAT', 10_000),
      apiKeysPerOrganization: readInt(env, 'API_KEYS_PER_ORGANIZATION', 100),
      webhooksPerOrganization: readInt(env, 'WEBHOOKS_PER_ORGANIZATION', 20),
    },
    streamHeartbeatSeconds: readInt(env, 'STREAM_HEARTBEAT_SECONDS', 15),
    usageFlushSeconds: readInt(env, 'USAGE_FLUSH_SECONDS', 10),
    accountDeletionGraceDays: readInt(env, 'ACCOUNT_DELETION_GRACE_DAYS', 30),
    anonymousSignIn: readBool(env, 'ANONYMOUS_SIGN_IN'),
    guestRetentionDays: readInt(env, 'GUEST_RETENTION_DAYS', 30),
    mfa: { stepUpSeconds: readInt(env, 'MFA_STEP_UP_SECONDS', 600), totpIssuer: readTotpIssuer(env, productName) },
    webauthn: readWebauthn(env, publicUrl, productName),
    oidcProviders: readOidcProviders(env),
    oidcRedirectUris: readOidcRedirectUris(env),
    metrics: readMetrics(env, port),
    logLevel,
    production,
    warnings: renamedVariableWarnings(env),
  };
  if (!ConfigCheck.Check(config)) throw new ConfigError('environment', 'produced an invalid configuration');
  return config;
}

/** METRICS_PORT (unset: no listener), METRICS_HOST (127.0.0.1), METRICS_TOKEN (unset: none; else ≥ 32 characters). */
function readMetrics(env: Env, port: number): Config['metrics'] {
  const metricsPort = env.METRICS_PORT ? readInt(env, 'METRICS_PORT', 0) : null;
  if (metricsPort !== null && metricsPort === port) throw new ConfigError('METRICS_PORT', `must differ from PORT (${port}): metrics stay off the public port`);
  const token = env.METRICS_TOKEN || null;
  // A scraper's secret, guessed at network speed if short.
  if (token !== null && (token.length < 32 || !/^[\x21-\x7e]+$/.test(token))) throw new ConfigError('METRICS_TOKEN', 'must be at least 32 visible ASCII characters');
  return { port: metricsPort, host: env.METRICS_HOST || '127.0.0.1', token };
}

/** PRODUCT_NAME: what the service's users know it as (mails, pages, the authenticator's label). */
function readProductName(env: Env): string {
  const name = (env.PRODUCT_NAME ?? 'Gatehouse').trim();
  // The same characters as TOTP_ISSUER, whose default it is (an otpauth:// label takes no colon).
  if (!/^[\p{L}\p{N} ._-]{1,60}$/u.test(name)) throw new ConfigError('PRODUCT_NAME', 'must be 1 to 60 letters, digits, spaces, dots, dashes or underscores');
  return name;
}

/** The name authenticator apps list the account under; it travels in otpauth:// URLs. */
function readTotpIssuer(env: Env, productName: string): string {
  const issuer = env.TOTP_ISSUER ?? productName;
  if (!/^[\p{L}\p{N} ._-]{1,60}$/u.test(issuer)) throw new ConfigError('TOTP_ISSUER', 'must be 1 to 60 letters, digits, spaces, dots, dashes or underscores (no colon)');
  return issuer;
}

/**
 * WEBAUTHN_RP_ID: a registrable domain (browsers refuse IP addresses), by default PUBLIC_URL's
 * host; WEBAUTHN_ORIGINS: comma list of the origins passkeys are used from (default PUBLIC_URL's
 * origin; add app origins such as `android:apk-key-hash:…`); WEBAUTHN_RP_NAME: shown by the
 * authenticator (default TOTP_ISSUER's value or PRODUCT_NAME).
 */
function readWebauthn(env: Env, publicUrl: string, productName: string): Config['webauthn'] {
  // Only a value given explicitly is checked: PUBLIC_URL on an IP address (tests, a LAN) still
  // starts, and browsers then refuse passkeys there until WEBAUTHN_RP_ID names a domain.
  const rpId = (env.WEBAUTHN_RP_ID || new URL(publicUrl).hostname).toLowerCase();
  if (env.WEBAUTHN_RP_ID && (!/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/.test(rpId) || /^[\d.]+$/.test(rpId))) {
    throw new ConfigError('WEBAUTHN_RP_ID', `must be a domain name (not an IP address), got "${rpId}"`);
  }
  const origins = readList(env, 'WEBAUTHN_ORIGINS');
  const rpName = env.WEBAUTHN_RP_NAME || env.TOTP_ISSUER || productName;
  if (rpName.length > 60) throw new ConfigError('WEBAUTHN_RP_NAME', 'must be at most 60 characters');
  return { rpId, rpName, origins: origins.length > 0 ? origins : [new URL(publicUrl).origin] };
}

/** OIDC_REDIRECT_URIS: comma list of exact http(s) URLs (no fragment) a web app's sign-in returns to. */
function readOidcRedirectUris(env: Env): string[] {
  return readList(env, 'OIDC_REDIRECT_URIS').map((raw) => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new ConfigError('OIDC_REDIRECT_URIS', `must be a comma list of URLs, got "${raw}"`);
    }
    if (!/^https?:$/.test(url.protocol) || url.hash || url.username || url.password || url.href !== raw) {
      throw new ConfigError('OIDC_REDIRECT_URIS', `must list http(s) URLs as written in normal form, without a fragment or credentials, got "${raw}"`);
    }
    return raw;
  });
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const RESERVED_AUTHORIZATION_PARAMS = new Set(['client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'nonce', 'code_challenge', 'code_challenge_method']);

type ProviderType = OidcProviderConfig['type'];
const isProviderType = (type: string): type is ProviderType => type in PROVIDER_PRESETS;

/**
 * What each `type` of provider starts from; an entry's own fields win (a test points `issuer` at
 * a local issuer). Apple answers by form post when asked for the name or address, and its scope
 * for the name is `name`; Google's ID tokens also name their issuer without the scheme.
 */
const PROVIDER_PRESETS: Record<ProviderType, { issuer?: string; name?: string; scopes: string[]; authorizationParams: Record<string, string> }> = {
  oidc: { scopes: ['openid', 'email', 'profile'], authorizationParams: {} },
  github: { issuer: 'https://github.com', name: 'GitHub', scopes: ['read:user', 'user:email'], authorizationParams: {} },
  apple: { issuer: 'https://appleid.apple.com', name: 'Apple', scopes: ['openid', 'email', 'name'], authorizationParams: { response_mode: 'form_post' } },
  google: { issuer: 'https://accounts.google.com', name: 'Google', scopes: ['openid', 'email', 'profile'], authorizationParams: {} },
};

/**
 * OIDC_PROVIDERS: a JSON list of `{ id, issuer, client_id, client_secret, scopes?, name?, type?,
 * authorization_params?, link_by_email?, native_client_ids? }`. `type` is `oidc` (default), `github` (OAuth 2),
 * `apple` or `google` (each with its issuer and defaults: PROVIDER_PRESETS). A provider only for
 * native apps' ID tokens needs `native_client_ids` and no client secret. Issuers must be https, except on a loopback host (a provider run locally).
 */
function readOidcProviders(env: Env): OidcProviderConfig[] {
  const raw = env.OIDC_PROVIDERS;
  if (!raw) return [];
  const fail = (problem: string) => new ConfigError('OIDC_PROVIDERS', problem);
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch {
    throw fail('must be a JSON list of { id, issuer, client_id, client_secret, scopes }');
  }
  if (!Array.isArray(list)) throw fail('must be a JSON list of { id, issuer, client_id, client_secret, scopes }');
  const seen = new Set<string>();
  return list.map((entry: Record<string, unknown>, i): OidcProviderConfig => {
    if (typeof entry !== 'object' || entry === null) throw fail(`entry ${i} must be an object`);
    const text = (key: string, max = 2048): string | undefined => {
      const value = entry[key];
      if (value === undefined) return undefined;
      if (typeof value !== 'string' || value.length === 0 || value.length > max) throw fail(`entry ${i}: ${key} must be a non-empty string of at most ${max} characters`);
      return value;
    };
    const id = text('id', 32);
    if (!id || !/^[a-z0-9][a-z0-9-]*$/.test(id)) throw fail(`entry ${i}: id must be lower-case letters, digits and dashes (e.g. "google")`);
    if (seen.has(id)) throw fail(`entry ${i}: id "${id}" is used twice`);
    seen.add(id);
    const type = text('type', 10) ?? 'oidc';
    if (!isProviderType(type)) throw fail(`entry ${i} (${id}): type must be "oidc", "github", "apple" or "google"`);
    const preset = PROVIDER_PRESETS[type];
    const issuer = (text('issuer') ?? preset.issuer)?.replace(/\/+$/, '');
    if (!issuer) throw fail(`entry ${i} (${id}): issuer is required`);
    let url: URL;
    try {
      url = new URL(issuer);
    } catch {
      throw fail(`entry ${i} (${id}): issuer is not a URL`);
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) {
      throw fail(`entry ${i} (${id}): issuer must use https (plain http only on a loopback host)`);
    }
    const clientId = text('client_id', 512) ?? null;
    const clientSecret = text('client_secret', 4096) ?? null;
    const nativeClientIds = entry.native_client_ids ?? [];
    if (!Array.isArray(nativeClientIds) || nativeClientIds.some((c) => typeof c !== 'string' || c.length === 0 || c.length > 512) || nativeClientIds.length > 20) {
      throw fail(`entry ${i} (${id}): native_client_ids must be a list of at most 20 client ids (an app's bundle id, its OAuth client ids)`);
    }
    if (type === 'github' && nativeClientIds.length > 0) throw fail(`entry ${i} (${id}): GitHub issues no ID tokens: native_client_ids is for OpenID providers`);
    if ((clientId === null) !== (clientSecret === null) || (clientId === null && nativeClientIds.length === 0)) {
      throw fail(`entry ${i} (${id}): client_id and client_secret are required (or, for a provider only used by native apps, native_client_ids alone)`);
    }
    const scopes = entry.scopes ?? preset.scopes;
    if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string' || !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s))) throw fail(`entry ${i} (${id}): scopes must be a list of scope names`);
    if (type !== 'github' && !scopes.includes('openid')) throw fail(`entry ${i} (${id}): scopes must include "openid"`);
    const params = entry.authorization_params ?? preset.authorizationParams;
    if (typeof params !== 'object' || params === null || Array.isArray(params) || Object.entries(params).some(([k, v]) => typeof v !== 'string' || RESERVED_AUTHORIZATION_PARAMS.has(k))) {
      throw fail(`entry ${i} (${id}): authorization_params must map names to strings, and may not set ${[...RESERVED_AUTHORIZATION_PARAMS].join(', ')}`);
    }
    const name = text('name', 60) ?? preset.name ?? id.charAt(0).toUpperCase() + id.slice(1);
    const linkByEmail = entry.link_by_email ?? true;
    if (typeof linkByEmail !== 'boolean') throw fail(`entry ${i} (${id}): link_by_email must be true or false`);
    return { id, name, type, issuer, clientId, clientSecret, nativeClientIds: nativeClientIds as string[], scopes: scopes as string[], authorizationParams: params as Record<string, string>, linkByEmail };
  });
}
