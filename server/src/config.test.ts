import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

const SECRET = 'a-production-secret-of-32-characters';

describe('config', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080, host: '0.0.0.0', publicUrl: 'http://localhost:8080', databaseUrl: 'sqlite:./data/gatehouse.db',
      accessTokenTtl: 900, refreshTokenTtl: 2_592_000, maxBodyBytes: 1_048_576, publicRateLimitPerMinute: 20,
      loginMaxFailures: 10, headersTimeout: 15, requestTimeout: 30, trustProxy: false, corsOrigins: [], webhookAllowPrivate: false, logLevel: 'info',
    });
    expect(c.webhookRetryDelays).toEqual([5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]);
    expect(c.redisUrl).toBeUndefined();
    // Metrics stay off the public port: no listener, no token, until the operator asks.
    expect(c.metrics).toEqual({ port: null, host: '127.0.0.1', token: null });
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_TOKEN: 'x'.repeat(32) }).metrics).toEqual({ port: 9464, host: '127.0.0.1', token: 'x'.repeat(32) });
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ METRICS_PORT: '0' }, 'METRICS_PORT'],
    [{ PORT: '9464', METRICS_PORT: '9464' }, 'METRICS_PORT'],
    [{ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'http://x' }, 'REDIS_URL'],
    [{ TRUST_PROXY: 'yes' }, 'TRUST_PROXY'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ ACCESS_TOKEN_TTL: '-5' }, 'ACCESS_TOKEN_TTL'],
    [{ WEBHOOK_RETRY_DELAYS: '5,x' }, 'WEBHOOK_RETRY_DELAYS'],
    [{ NODE_ENV: 'production' }, 'GATEHOUSE_SECRET'],
    [{ NODE_ENV: 'production', GATEHOUSE_SECRET: SECRET }, 'SMTP_URL'],
    [{ NODE_ENV: 'production', GATEHOUSE_SECRET: SECRET, SMTP_URL: '' }, 'SMTP_URL'],
    [{ NODE_ENV: 'production', GATEHOUSE_SECRET: SECRET, SMTP_URL: 'smtp://mail.test:587?logger=true' }, 'SMTP_URL'],
    [{ NODE_ENV: 'production', GATEHOUSE_SECRET: SECRET, SMTP_URL: 'smtp://mail.test:587?debug=1' }, 'SMTP_URL'],
    [{ NODE_ENV: 'production', GATEHOUSE_SECRET: SECRET, SMTP_URL: 'smtps://u:p@mail.test?transactionLog=true' }, 'SMTP_URL'],
    [{ GATEHOUSE_SECRET: 'short' }, 'GATEHOUSE_SECRET'],
    [{ APP_LINK_URL: 'javascript:alert(1)' }, 'APP_LINK_URL'],
    [{ APP_LINK_URL: 'not a url' }, 'APP_LINK_URL'],
    [{ APP_LINK_URL: 'myapp://auth?x=1' }, 'APP_LINK_URL'],
    // A path or a trailing slash never equals the Origin a browser sends: such an entry would match nothing, silently.
    [{ CORS_ORIGINS: 'http://127.0.0.1:4801/' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: 'https://a.test, https://b.test/app' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: 'a.test' }, 'CORS_ORIGINS'],
    [{ APPLE_APP_IDS: 'com.example.app' }, 'APPLE_APP_IDS'],
    [{ ANDROID_APP_PACKAGE: 'com.example.app' }, 'ANDROID_CERT_SHA256'],
    [{ ANDROID_CERT_SHA256: 'AB:CD' }, 'ANDROID_APP_PACKAGE'],
    [{ ANDROID_APP_PACKAGE: 'com.example.app', ANDROID_CERT_SHA256: 'AB:CD' }, 'ANDROID_CERT_SHA256'],
    [{ ANDROID_APP_PACKAGE: 'app', ANDROID_CERT_SHA256: 'ab'.repeat(32) }, 'ANDROID_APP_PACKAGE'],
    [{ REQUEST_TIMEOUT: '0' }, 'REQUEST_TIMEOUT'],
    [{ HEADERS_TIMEOUT: '40' }, 'HEADERS_TIMEOUT'],
  ])('refuses %o with one line naming %s', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^config: ${name} `));
  });

  it('reads the caps per organization, and the old *_PER_ACCOUNT names with one warning each naming the new variable', () => {
    const defaults = loadConfig({});
    expect(defaults.caps).toEqual({ agentsPerOrganization: 10_000, chatsPerOrganization: 100_000, messagesPerChat: 10_000, apiKeysPerOrganization: 100, webhooksPerOrganization: 20 });
    expect(defaults.warnings).toEqual([]);
    const current = loadConfig({ AGENTS_PER_ORGANIZATION: '7', CHATS_PER_ORGANIZATION: '8', API_KEYS_PER_ORGANIZATION: '9', WEBHOOKS_PER_ORGANIZATION: '10' });
    expect(current.caps).toMatchObject({ agentsPerOrganization: 7, chatsPerOrganization: 8, apiKeysPerOrganization: 9, webhooksPerOrganization: 10 });
    expect(current.warnings).toEqual([]);

    const old = loadConfig({ AGENTS_PER_ACCOUNT: '7', CHATS_PER_ACCOUNT: '8', API_KEYS_PER_ACCOUNT: '9', WEBHOOKS_PER_ACCOUNT: '10' });
    expect(old.caps).toMatchObject({ agentsPerOrganization: 7, chatsPerOrganization: 8, apiKeysPerOrganization: 9, webhooksPerOrganization: 10 });
    expect(old.warnings).toEqual([
      "config: AGENTS_PER_ACCOUNT is an old name: set AGENTS_PER_ORGANIZATION instead (AGENTS_PER_ACCOUNT's value is used meanwhile)",
      "config: CHATS_PER_ACCOUNT is an old name: set CHATS_PER_ORGANIZATION instead (CHATS_PER_ACCOUNT's value is used meanwhile)",
      "config: API_KEYS_PER_ACCOUNT is an old name: set API_KEYS_PER_ORGANIZATION instead (API_KEYS_PER_ACCOUNT's value is used meanwhile)",
      "config: WEBHOOKS_PER_ACCOUNT is an old name: set WEBHOOKS_PER_ORGANIZATION instead (WEBHOOKS_PER_ACCOUNT's value is used meanwhile)",
    ]);
  });

  it('takes the new name when both are set, and says the old one is ignored', () => {
    const both = loadConfig({ AGENTS_PER_ACCOUNT: 'not a number', AGENTS_PER_ORGANIZATION: '5' });
    expect(both.caps.agentsPerOrganization).toBe(5);
    expect(both.warnings).toEqual(['config: AGENTS_PER_ACCOUNT is an old name and is ignored: AGENTS_PER_ORGANIZATION is set too and wins; remove AGENTS_PER_ACCOUNT']);
    // An empty value is no value, under either name.
    expect(loadConfig({ AGENTS_PER_ACCOUNT: '', AGENTS_PER_ORGANIZATION: '5' }).warnings).toEqual([]);
    expect(loadConfig({ AGENTS_PER_ACCOUNT: '6', AGENTS_PER_ORGANIZATION: '' })).toMatchObject({ caps: { agentsPerOrganization: 6 }, warnings: [expect.stringMatching(/^config: AGENTS_PER_ACCOUNT is an old name: set AGENTS_PER_ORGANIZATION/)] });
  });

  it('names the variable the operator set when its value is bad, old name or new', () => {
    expect(() => loadConfig({ WEBHOOKS_PER_ACCOUNT: '0' })).toThrow(/^config: WEBHOOKS_PER_ACCOUNT must be a whole number from 1 to 10000, got "0"$/);
    expect(() => loadConfig({ WEBHOOKS_PER_ORGANIZATION: '0' })).toThrow(/^config: WEBHOOKS_PER_ORGANIZATION must be a whole number from 1 to 10000, got "0"$/);
  });

  it('takes PUBLIC_URL without a trailing slash and parses lists', () => {
    const c = loadConfig({ PUBLIC_URL: 'https://auth.example.com/', CORS_ORIGINS: 'https://a.test, https://b.test' });
    expect(c.publicUrl).toBe('https://auth.example.com');
    expect(c.corsOrigins).toEqual(['https://a.test', 'https://b.test']);
  });

  it('keeps APP_LINK_URL in normal form, as redirect URIs under it are compared', () => {
    expect(loadConfig({ APP_LINK_URL: 'myApp://auth/' }).appLinkUrl).toBe('myapp://auth');
    expect(loadConfig({ APP_LINK_URL: 'https://App.example.com:443/auth' }).appLinkUrl).toBe('https://app.example.com/auth');
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
  });

  it('takes production with GATEHOUSE_SECRET and SMTP_URL (nodemailer logging explicitly off is fine)', () => {
    const c = loadConfig({ NODE_ENV: 'production', GATEHOUSE_SECRET: SECRET, SMTP_URL: 'smtps://user:pass@mail.test:465?logger=false&debug=0' });
    expect(c).toMatchObject({ production: true, smtpUrl: 'smtps://user:pass@mail.test:465?logger=false&debug=0' });
  });

  it('keeps the log mailer outside production: SMTP_URL stays optional', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).smtpUrl).toBeUndefined();
  });

  it('reads OIDC_PROVIDERS with defaults per type, and OIDC_REDIRECT_URIS', () => {
    const config = loadConfig({
      OIDC_PROVIDERS: JSON.stringify([
        { id: 'google', issuer: 'https://accounts.google.com/', client_id: 'c', client_secret: 's' },
        { id: 'github', type: 'github', client_id: 'c', client_secret: 's' },
        { id: 'corp', issuer: 'http://localhost:9000', client_id: 'c', client_secret: 's', link_by_email: false, authorization_params: { prompt: 'login' } },
        { id: 'apple', type: 'apple', native_client_ids: ['com.example.notes'] },
        { id: 'g', type: 'google', client_id: 'c', client_secret: 's', native_client_ids: ['c', 'ios-client'] },
      ]),
      OIDC_REDIRECT_URIS: 'https://app.example.com/auth/callback',
    });
    expect(config.oidcProviders).toEqual([
      { id: 'google', name: 'Google', type: 'oidc', issuer: 'https://accounts.google.com', clientId: 'c', clientSecret: 's', scopes: ['openid', 'email', 'profile'], authorizationParams: {}, linkByEmail: true, nativeClientIds: [] },
      { id: 'github', name: 'GitHub', type: 'github', issuer: 'https://github.com', clientId: 'c', clientSecret: 's', scopes: ['read:user', 'user:email'], authorizationParams: {}, linkByEmail: true, nativeClientIds: [] },
      { id: 'corp', name: 'Corp', type: 'oidc', issuer: 'http://localhost:9000', clientId: 'c', clientSecret: 's', scopes: ['openid', 'email', 'profile'], authorizationParams: { prompt: 'login' }, linkByEmail: false, nativeClientIds: [] },
      {
        id: 'apple', name: 'Apple', type: 'apple', issuer: 'https://appleid.apple.com', clientId: null, clientSecret: null, nativeClientIds: ['com.example.notes'],
        scopes: ['openid', 'email', 'name'], authorizationParams: { response_mode: 'form_post' }, linkByEmail: true,
      },
      {
        id: 'g', name: 'Google', type: 'google', issuer: 'https://accounts.google.com', clientId: 'c', clientSecret: 's', nativeClientIds: ['c', 'ios-client'],
        scopes: ['openid', 'email', 'profile'], authorizationParams: {}, linkByEmail: true,
      },
    ]);
    expect(config.oidcRedirectUris).toEqual(['https://app.example.com/auth/callback']);
  });

  it('refuses OIDC_PROVIDERS and OIDC_REDIRECT_URIS it cannot use, naming the variable', () => {
    const bad = [
      'not json', '{}', '[{"id":"Google","issuer":"https://a.example","client_id":"c","client_secret":"s"}]',
      '[{"id":"a","issuer":"http://idp.example","client_id":"c","client_secret":"s"}]',
      '[{"id":"a","issuer":"https://a.example","client_id":"c"}]',
      '[{"id":"a","issuer":"https://a.example","client_id":"c","client_secret":"s","scopes":["email"]}]',
      '[{"id":"a","issuer":"https://a.example","client_id":"c","client_secret":"s","authorization_params":{"redirect_uri":"https://evil.example"}}]',
      '[{"id":"a","issuer":"https://a.example","client_id":"c","client_secret":"s"},{"id":"a","issuer":"https://b.example","client_id":"c","client_secret":"s"}]',
      '[{"id":"a","type":"apple"}]',
      '[{"id":"a","type":"apple","native_client_ids":[]}]',
      '[{"id":"a","type":"apple","native_client_ids":"com.example.notes"}]',
      '[{"id":"a","type":"apple","client_id":"c","native_client_ids":["com.example.notes"]}]',
      '[{"id":"a","type":"github","client_id":"c","client_secret":"s","native_client_ids":["x"]}]',
      '[{"id":"a","type":"facebook","client_id":"c","client_secret":"s"}]',
    ];
    for (const value of bad) expect(() => loadConfig({ OIDC_PROVIDERS: value }), value).toThrow(/^config: OIDC_PROVIDERS /);
    for (const value of ['https://app.example.com/cb#x', 'myapp://auth', 'https://APP.example.com/cb', 'https://app.example.com/a/../cb']) {
      expect(() => loadConfig({ OIDC_REDIRECT_URIS: value }), value).toThrow(/^config: OIDC_REDIRECT_URIS /);
    }
  });
});
