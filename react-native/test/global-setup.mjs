/**
 * One real `gatehouse serve` for the whole suite (server/test/server-process.ts: a fresh SQLite
 * file, a free port), started before the test files run. Its output (the development log mailer
 * writes every mail there) goes to a file the tests read mailed links from; the base URL and that
 * file reach the test workers through the environment. A real OpenID provider (oidc-provider, in
 * this process) is its `test-idp`: any email address typed at its sign-in form signs in as itself.
 */
import { appendFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { register } from 'tsx/esm/api';

export default async function globalSetup() {
  register();
  const { startServerOnFreshSqlite } = await import('../../server/test/server-process.ts');
  const { startTestIssuer } = await import('../../server/test/oidc-issuer.ts');
  // A native client: its loopback redirect URI matches the server's port, whichever it gets (RFC 8252).
  // The second client is the example app's native sign-in sheet (its ID tokens sign in at
  // POST /v1/auth/id-token); the issuer puts the address in its ID tokens, as Apple and Google do.
  const { nativeTestClient, NATIVE_TEST_APP } = await import('./native-app.ts');
  const issuer = await startTestIssuer(
    [
      { client_id: 'gatehouse-rn', client_secret: 'rn-suite-client-secret', application_type: 'native', redirect_uris: ['http://127.0.0.1/v1/auth/oidc/test-idp/callback'] },
      nativeTestClient(NATIVE_TEST_APP),
    ],
    { openAccounts: true, claimsInIdToken: true },
  );
  globalThis.__gatehouseIssuer = issuer;
  const logFile = join(mkdtempSync(join(tmpdir(), 'gatehouse-rn-')), 'server.log');
  const server = await startServerOnFreshSqlite({
    // The server closes a connection that has sent nothing for HEADERS_TIMEOUT (15 s: slowloris).
    // Node's fetch can hold such a connection in its pool (opened for a request another connection
    // then took), and the package test's ~14 s pause lines the next file's first request up with
    // that close on a loaded machine: "other side closed" on a POST, which no client may resend.
    // The suite runs with a deadline far from its pauses; the race itself is a client's to meet.
    HEADERS_TIMEOUT: '60',
    REQUEST_TIMEOUT: '60',
    PUBLIC_RATE_LIMIT_PER_MINUTE: '100000',
    ACCOUNT_RATE_LIMIT_PER_MINUTE: '100000',
    APP_LINK_URL: 'gatehouse-example://auth',
    ANONYMOUS_SIGN_IN: 'true',
    OIDC_PROVIDERS: JSON.stringify([{ id: 'test-idp', name: 'Test IdP', issuer: issuer.url, client_id: 'gatehouse-rn', client_secret: 'rn-suite-client-secret', native_client_ids: [NATIVE_TEST_APP.clientId] }]),
  });
  appendFileSync(logFile, server.output());
  server.child.stdout?.on('data', (chunk) => appendFileSync(logFile, chunk));
  server.child.stderr?.on('data', (chunk) => appendFileSync(logFile, chunk));
  process.env.GATEHOUSE_TEST_URL = server.base;
  process.env.GATEHOUSE_TEST_LOG = logFile;
  process.env.GATEHOUSE_TEST_ISSUER = issuer.url;
  globalThis.__gatehouseServer = server;
}
