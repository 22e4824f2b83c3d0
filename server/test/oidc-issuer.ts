import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

/**
 * A real OpenID provider (panva's oidc-provider 9, the certified implementation) on loopback, for
 * sign-in tests: discovery, authorization code with PKCE, signed ID tokens, userinfo. Its login
 * page is a plain form (a person types their account id: no password, this is a test issuer) that
 * a browser, or `signInAtProvider` (provider-browser.ts), fills in.
 */
export interface TestAccount {
  id: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface TestClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  /** `native`: a loopback redirect URI matches on any port (RFC 8252), for servers started on a free port. */
  application_type?: 'web' | 'native';
}

export interface TestIssuer {
  url: string;
  accounts: Map<string, TestAccount>;
  /** Rewrites the token endpoint's JSON answer (a substitution attack); null for none. */
  tamperTokenResponse: ((body: Record<string, unknown>) => Record<string, unknown>) | null;
  /** The key the issuer signs its ID tokens with (kid `test-key`): for tokens a test shapes itself (expired, another audience). */
  signingKey: CryptoKey;
  close(): Promise<void>;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function formOf(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString());
}

export interface TestIssuerOptions {
  /** Any account id that is an email address signs in as that address, verified (for suites in other processes than the issuer's). */
  openAccounts?: boolean;
  /** Put the email and name in the ID token itself, as Apple and Google do (default: only in userinfo, oidc-provider's conforming way). */
  claimsInIdToken?: boolean;
}

export async function startTestIssuer(clients: TestClient[], options: TestIssuerOptions = {}): Promise<TestIssuer> {
  const accounts = new Map<string, TestAccount>();
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer: TestIssuer = { url, accounts, tamperTokenResponse: null, signingKey: privateKey, close: () => new Promise((resolve) => server.close(() => resolve())) };

  const provider = new Provider(url, {
    clients: clients.map((c) => ({ ...c, grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_post' })),
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' }] },
    cookies: { keys: ['a test issuer signs its cookies with this'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    conformIdTokenClaims: !options.claimsInIdToken,
    pkce: { required: () => true },
    ttl: { AuthorizationCode: 60, Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600 },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, id) => {
      const account = accounts.get(id) ?? (options.openAccounts && /^[^@\s]+@[^@\s]+$/.test(id) ? { id, email: id, email_verified: true, name: 'Open Account' } : undefined);
      if (!account) return undefined;
      return { accountId: id, claims: () => ({ sub: id, email: account.email, email_verified: account.email_verified, name: account.name }) };
    },
  });
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.path === '/token' && issuer.tamperTokenResponse && ctx.status === 200) ctx.body = issuer.tamperTokenResponse(ctx.body as Record<string, unknown>);
  });
  const handle = provider.callback();

  server.on('request', (req, res) => {
    // A browser asks for it on the sign-in page; a 404 would be noise in its console.
    if (req.url === '/favicon.ico') return void res.writeHead(204).end();
    const interaction = /^\/interaction\/([\w-]+)$/.exec(req.url ?? '');
    if (!interaction) return void handle(req, res);
    void (async () => {
      try {
        const details = await provider.interactionDetails(req, res);
        if (req.method === 'GET') {
          res.setHeader('Content-Type', 'text/html; charset=utf-8');
          res.end(`<!doctype html><title>Test issuer: sign in</title><form method="post"><label>Account <input name="login" autofocus></label>
<button type="submit">Sign in at the test issuer</button><button type="submit" name="cancel" value="1">Cancel</button></form><p>${escapeHtml(String(details.params.client_id))}</p>`);
          return;
        }
        const form = await formOf(req);
        if (form.get('cancel')) {
          await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'the person cancelled' }, { mergeWithLastSubmission: false });
          return;
        }
        const accountId = form.get('login') ?? '';
        if (!accounts.has(accountId) && !(options.openAccounts && accountId.includes('@'))) {
          res.statusCode = 400;
          res.end('unknown account');
          return;
        }
        // Signed in and every requested scope granted at once: consent is not what these tests are about.
        const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
        grant.addOIDCScope(String(details.params.scope));
        const grantId = await grant.save();
        await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
      } catch (error) {
        res.statusCode = 500;
        res.end(String(error));
      }
    })();
  });
  return issuer;
}
