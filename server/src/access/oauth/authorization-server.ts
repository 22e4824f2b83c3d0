import { hkdfSync } from 'node:crypto';
import type { Kysely } from 'kysely';
import type Provider from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import { accessTokenAudience, mcpAudience, type KeyRing, type AccountCache } from '../../identity/index.js';
import { isoTime, type Clock } from '../../kernel/clock.js';
import type { Database } from '../../kernel/db/schema.js';
import type { AttemptLimiter } from '../../kernel/limits/limiter.js';
import { sha256Hex } from '../../kernel/opaque-tokens.js';
import { USER_SCOPES } from '../../kernel/access-terms/scopes.js';
import type { ClientMetadataDocuments } from './client-metadata-documents.js';
import { oauthClientsAdapter } from './oauth-clients.js';
import { devicePages, OAUTH_PAGE_CSP, oauthPage } from './oauth-pages.js';
import { oauthRecordsAdapter, oauthRecordsSweep } from './oauth-records.js';

/** The resources a token can be bound to (RFC 8707): the REST API, and the MCP endpoint. */
export interface OauthResources {
  api: string;
  mcp: string;
}

export function oauthResources(publicUrl: string): OauthResources {
  return { api: accessTokenAudience(publicUrl), mcp: mcpAudience(publicUrl) };
}

/**
 * Where the engine's endpoints live, under the issuer (PUBLIC_URL). Only these paths (and the
 * resume paths under them) are handed to it; anything else under /oauth is Gatehouse's.
 */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  revocation: '/oauth/revoke',
  introspection: '/oauth/introspect',
  device_authorization: '/oauth/device_authorization',
  code_verification: '/oauth/device',
  // Gatehouse's own route, not the engine's (oauth-registration.routes.ts).
  registration: '/oauth/register',
  // Not served by the engine: Gatehouse's own JWKS, which the engine's tokens are verified with.
  jwks: '/.well-known/jwks.json',
} as const;

/**
 * The paths handed to the engine: its endpoints, and the resume steps below authorize and device.
 * Registration is Gatehouse's own route (oauth-registration.routes.ts): it writes the same rows
 * as Settings → OAuth apps.
 */
export const ENGINE_PATHS = [
  OAUTH_ROUTES.authorization, `${OAUTH_ROUTES.authorization}/:uid`, OAUTH_ROUTES.token, OAUTH_ROUTES.revocation, OAUTH_ROUTES.introspection,
  OAUTH_ROUTES.device_authorization, OAUTH_ROUTES.code_verification, `${OAUTH_ROUTES.code_verification}/:uid`, `${OAUTH_ROUTES.code_verification}/:uid/*`,
] as const;

const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** The polling interval a device is given (the engine's default, `interval` in its answer). */
const DEVICE_POLL_INTERVAL_SECONDS = 5;

/** The interaction (sign-in and consent) the engine sends a browser to; the cookie that binds it to that browser is scoped to this path. */
export const interactionPath = (uid: string) => `/oauth/interaction/${uid}`;

export interface AuthorizationServerDeps {
  db: Kysely<Database>;
  clock: Clock;
  keyRing: KeyRing;
  accounts: Pick<AccountCache, 'get'>;
  publicUrl: string;
  /** PRODUCT_NAME: the device pages say it. */
  productName: string;
  secret: string | undefined;
  accessTokenTtl: number;
  refreshTokenTtl: number;
  onError: (error: unknown) => void;
  /** TRUST_PROXY: whether X-Forwarded-* describe the request. */
  trustProxy: boolean;
  /** Ends a grant the engine ended (oauth-grants.ts `endGrant`). */
  onGrantRevoked: (grantId: string) => Promise<unknown>;
  /** Counts device polls (slow_down). */
  attempts: Pick<AttemptLimiter, 'take'>;
  /** Client ID Metadata Documents, while apps may register themselves (absent: client_ids are registered ones only). */
  clientDocuments?: { load: ClientMetadataDocuments['load']; allowPrivate: boolean };
  /** The page a person's browser gets for a refusal (the wiring hands over http/problem-page.ts's), with its CSP. */
  errorPage: (problem: { title: string; detail: string; code: string; status: number; request_id: string }) => { html: string; contentSecurityPolicy: string };
}

export interface AuthorizationServer {
  /**
   * The engine signing with the key ring's current key (rebuilt once after a rotation). Loaded on
   * first use: importing oidc-provider prints its Node 20 warning, which a CLI command or a
   * server no app has asked anything of should not print.
   */
  engine(): Promise<Provider>;
  resources: OauthResources;
  /** The hourly sweep of expired engine records. */
  sweep: { sweepOnce(): Promise<number>; start(): void; stop(): void };
}

export function createAuthorizationServer(deps: AuthorizationServerDeps): AuthorizationServer {
  const resources = oauthResources(deps.publicUrl);
  const Records = oauthRecordsAdapter(deps.db, deps.clock, deps.secret, deps.onGrantRevoked);
  const Clients = oauthClientsAdapter(deps.db, deps.secret, deps.clientDocuments);
  let built: { kid: string; provider: Provider } | undefined;

  let engineModule: Promise<typeof import('oidc-provider')> | undefined;

  function render(ctx: KoaContextWithOIDC, page: { title: string; body: string }): void {
    ctx.type = 'html';
    ctx.set('Content-Security-Policy', OAUTH_PAGE_CSP);
    ctx.body = oauthPage(page.title, page.body, deps.productName);
  }

  /**
   * The engine's prompts, with one check more: every authorization comes to the consent step,
   * where the dashboard's session says who is signed in (and a consent given before goes on at
   * once). Left to itself, the engine would skip the step while its own login session lasts in
   * this browser, which outlives a sign-out of the dashboard.
   */
  function prompts({ interactionPolicy: { base, Check } }: typeof import('oidc-provider')) {
    const policy = base();
    policy.get('login')!.checks.add(new Check('gatehouse_session', 'Gatehouse checks who is signed in at every authorization', (ctx) =>
      (ctx.oidc.result?.login ? Check.NO_NEED_TO_PROMPT : Check.REQUEST_PROMPT)), 0);
    return policy;
  }

  function build(engineModule: typeof import('oidc-provider')): Provider {
    const { default: Engine, errors } = engineModule;
    const { kid, privateKey } = deps.keyRing.current();
    // Every instance derives the same cookie key from the shared signing key, so a flow's cookies
    // open on whichever instance the browser reaches next.
    const cookieKey = Buffer.from(hkdfSync('sha256', privateKey.export({ format: 'der', type: 'pkcs8' }), 'gatehouse', 'oauth-cookies v1', 32)).toString('base64url');
    const configuration: Configuration = {
      adapter: (name: string) => (name === 'Client' ? new Clients(name) : new Records(name)),
      jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid, alg: 'EdDSA', use: 'sig' }] as never },
      cookies: { keys: [cookieKey] },
      routes: OAUTH_ROUTES,
      scopes: ['offline_access'],
      claims: { openid: ['sub'] },
      pkce: { required: () => true }, // oidc-provider 9 knows S256 only
      clientDefaults: {
        id_token_signed_response_alg: 'EdDSA',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
      enabledJWA: { idTokenSigningAlgValues: ['EdDSA'], authorizationSigningAlgValues: ['EdDSA'] },
      features: {
        devInteractions: { enabled: false },
        userinfo: { enabled: false },
        revocation: { enabled: true },
        introspection: { enabled: true },
        deviceFlow: {
          enabled: true,
          charset: 'base-20', // consonants only: no words, nothing to misread
          mask: '****-****',
          userCodeInputSource: async (ctx, form, _out, error) => render(ctx, devicePages.input(form, error as { name?: string; userCode?: string } | undefined)),
          userCodeConfirmSource: async (ctx, form, client, _device, userCode) => render(ctx, devicePages.confirm(form, client.clientName ?? client.clientId, userCode)),
          successSource: async (ctx) => render(ctx, devicePages.success(ctx.oidc.client?.clientName ?? ctx.oidc.client?.clientId ?? 'The app')),
        },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => resources.api,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: KoaContextWithOIDC, resource: string) => {
            if (resource !== resources.api && resource !== resources.mcp) throw new errors.InvalidTarget(`resource must be ${resources.api} or ${resources.mcp}`);
            return { scope: USER_SCOPES.join(' '), audience: resource, accessTokenFormat: 'jwt', accessTokenTTL: deps.accessTokenTtl, jwt: { sign: { alg: 'EdDSA' } } };
          },
        },
      },
      rotateRefreshToken: true,
      // OAuth 2.1 style: an app registered for refresh tokens gets one (the consent page says so),
      // without OpenID's offline_access + prompt=consent ritual, which MCP clients do not perform.
      issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
      interactions: { policy: prompts(engineModule), url: (_ctx, interaction) => interactionPath(interaction.uid) },
      // A refusal shown to a person's browser (a bad authorization request, an expired flow):
      // Gatehouse's own page under its static CSP, not the engine's (which loads a web font).
      renderError: (ctx, out) => {
        const status = ctx.status >= 400 ? ctx.status : 400;
        const page = deps.errorPage({
          title: 'This sign-in cannot go on', detail: String(out.error_description ?? out.error), code: String(out.error), status,
          request_id: String(ctx.response.get('x-request-id') || 'none'),
        });
        ctx.type = 'html';
        ctx.set('Content-Security-Policy', page.contentSecurityPolicy);
        ctx.body = page.html;
      },
      findAccount: async (_ctx, id) => {
        const account = await deps.accounts.get(id);
        if (!account || account.disabled || account.deletion_due_at !== null) return undefined;
        return { accountId: id, claims: () => ({ sub: id }) };
      },
      // The organization the grant acts for, and the grant as the token's `sid`: Gatehouse checks
      // both on every request, and revoking the grant revokes the sid on every instance.
      extraTokenClaims: async (_ctx, token) => {
        const grantId = (token as { grantId?: string }).grantId;
        if (!grantId) return undefined;
        // Issuing a token is the grant's use (Connected apps shows when it was last used).
        const grant = await deps.db.updateTable('oauth_grants').set({ last_used_at: isoTime(deps.clock.now()) })
          .where('grant_id', '=', grantId).where('revoked_at', 'is', null).returning('org_id').executeTakeFirst();
        return grant ? { sid: grantId, org: grant.org_id } : { sid: grantId };
      },
      ttl: {
        AccessToken: deps.accessTokenTtl,
        AuthorizationCode: 60,
        DeviceCode: 600,
        Grant: deps.refreshTokenTtl,
        Interaction: 600,
        RefreshToken: deps.refreshTokenTtl,
        Session: 600,
      },
    };
    const provider = new Engine(deps.publicUrl, configuration);
    // Believe X-Forwarded-* only where Gatehouse itself does (TRUST_PROXY): the engine builds URLs from them.
    provider.proxy = deps.trustProxy;
    provider.on('server_error', (_ctx, error) => deps.onError(error));
    // The engine ends a grant itself when a code or a refresh token is used twice, or an app
    // revokes its refresh token: Gatehouse ends it too (its tokens' sid, Connected apps).
    provider.on('grant.revoked', (_ctx, grantId) => void deps.onGrantRevoked(grantId).catch(deps.onError));
    // RFC 8628 §3.5: a device that polls sooner than its interval is told slow_down. The engine
    // does not count polls; the attempt limiter does (across instances on Redis).
    provider.use(async (ctx, next) => {
      await next();
      if (ctx.path !== OAUTH_ROUTES.token || ctx.oidc?.params?.grant_type !== DEVICE_CODE_GRANT) return;
      if (ctx.status !== 400 || (ctx.body as { error?: string } | undefined)?.error !== 'authorization_pending') return;
      const poll = await deps.attempts.take([{ key: `oauth-device-poll:${sha256Hex(String(ctx.oidc.params.device_code))}`, limit: 1, windowSeconds: DEVICE_POLL_INTERVAL_SECONDS }]);
      if (!poll.allowed) ctx.body = { error: 'slow_down', error_description: `Poll at most every ${DEVICE_POLL_INTERVAL_SECONDS} seconds.` };
    });
    return provider;
  }

  return {
    resources,
    sweep: oauthRecordsSweep(deps),
    async engine() {
      engineModule ??= import('oidc-provider');
      const engine = await engineModule;
      const { kid } = deps.keyRing.current();
      if (built?.kid !== kid) built = { kid, provider: build(engine) };
      return built.provider;
    },
  };
}
