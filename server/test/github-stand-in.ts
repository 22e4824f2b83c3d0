import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * GitHub's OAuth 2 web flow and the two REST calls Gatehouse makes, the way a GitHub Enterprise
 * host serves them (`/login/oauth/…`, `/api/v3/…`), on loopback: GitHub itself cannot run here.
 * It keeps GitHub's rules that matter to a client: the code works once, for the redirect URI and
 * PKCE verifier it was issued with, and only with the client's secret (refusals come as 200 with
 * an `error`, as GitHub sends them); `/user/emails` lists addresses with `primary` and `verified`.
 */
export interface GitHubUser {
  id: number;
  login: string;
  name: string | null;
  emails: Array<{ email: string; primary: boolean; verified: boolean }>;
}

export interface GitHubStandIn {
  url: string;
  users: Map<string, GitHubUser>;
  /** The authorize step as a signed-in GitHub user approving the app: where the browser is sent. */
  approve(authorizeUrl: string, login: string): string;
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString());
}

export async function startGitHubStandIn(client: { id: string; secret: string }): Promise<GitHubStandIn> {
  const users = new Map<string, GitHubUser>();
  const codes = new Map<string, { login: string; redirectUri: string; challenge: string }>();
  const tokens = new Map<string, string>();
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
        const form = await bodyOf(req);
        const grant = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        const verified = grant && createHash('sha256').update(verifier).digest('base64url') === grant.challenge;
        // GitHub answers these refusals with 200 and the error in the body.
        if (form.get('client_id') !== client.id || form.get('client_secret') !== client.secret) return json(200, { error: 'incorrect_client_credentials' });
        if (!grant || !verified || form.get('redirect_uri') !== grant.redirectUri) return json(200, { error: 'bad_verification_code' });
        const token = `gho_${randomBytes(16).toString('hex')}`;
        tokens.set(token, grant.login);
        return json(200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
      }
      const login = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      const user = login ? users.get(login) : undefined;
      if (url.pathname === '/api/v3/user') return user ? json(200, { id: user.id, login: user.login, name: user.name }) : json(401, { message: 'Bad credentials' });
      if (url.pathname === '/api/v3/user/emails') return user ? json(200, user.emails.map((e) => ({ ...e, visibility: null }))) : json(401, { message: 'Bad credentials' });
      json(404, { message: 'Not Found' });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url, users,
    approve(authorizeUrl, login) {
      const request = new URL(authorizeUrl);
      if (request.origin + request.pathname !== `${url}/login/oauth/authorize` || request.searchParams.get('client_id') !== client.id) throw new Error(`not this app's authorize URL: ${authorizeUrl}`);
      if (request.searchParams.get('code_challenge_method') !== 'S256') throw new Error('no S256 PKCE challenge');
      const code = randomBytes(10).toString('hex');
      const redirectUri = request.searchParams.get('redirect_uri')!;
      codes.set(code, { login, redirectUri, challenge: request.searchParams.get('code_challenge')! });
      const back = new URL(redirectUri);
      back.search = new URLSearchParams({ code, state: request.searchParams.get('state')! }).toString();
      return back.toString();
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
