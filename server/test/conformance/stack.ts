import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ensureServerBuilt, SERVER_DIR, startServer, type ServerProcess } from '../server-process.js';
import { nativeTestClient, type NativeApp } from '../native-id-token.js';
import { startTestIssuer, type TestIssuer } from '../oidc-issuer.js';
import { startInbox } from '../smtp-inbox.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { startPrism, type PrismProxy } from './prism.js';
import type { OpenApiDocument } from './spec.js';

/** The conformance server's METRICS_TOKEN (journeys/operations.ts reads /metrics with it). */
export const METRICS_TOKEN = 'conformance-metrics-token-0123456789abcdef';

/**
 * Everything the suite talks to: a real `gatehouse serve` (SQLite in a temp dir, or a fresh
 * PostgreSQL database plus the shared Redis when DATABASE_URL / REDIS_URL are set), a real SMTP
 * inbox and webhook receiver, the document it publishes, and two Prism proxies in front of it.
 */
export interface Stack {
  server: ServerProcess;
  doc: OpenApiDocument;
  specFile: string;
  /** Validates requests and answers; refuses requests the document does not allow. */
  strict: PrismProxy;
  /** Forwards every request, validates answers only: for deliberately bad requests. */
  lenient: PrismProxy;
  inbox: Awaited<ReturnType<typeof startInbox>>;
  receiver: Receiver;
  /** The OpenID provider behind OIDC_PROVIDERS' `conformance-idp` (oidc-provider on loopback). */
  issuer: TestIssuer;
  /** The gatehouse CLI on the server's database (e.g. `users grant-admin`). */
  cli(args: string[]): Promise<{ code: number | null; output: string }>;
  stop(): Promise<void>;
}

/**
 * Small per-IP budgets, so the public 429 is reachable; TRUST_PROXY lets each actor have its own
 * address. The account routes' own limit is small for the same reason (their 429 is reachable),
 * yet above what any one actor of the journeys spends on them in a minute.
 */
export const SERVER_LIMITS = { publicPerMinute: 10, loginMaxFailures: 3, accountRoutesPerMinute: 120 } as const;
/** The relying party of passkeys: the journeys' software authenticator answers as this origin. */
export const PASSKEY_ORIGIN = 'https://conformance.test';
/** Sign-in providers: a real one, and one whose issuer nobody answers (its sign-ins are 503). */
export const OIDC_PROVIDER = 'conformance-idp';
/** A native app at that provider: its ID tokens sign in at POST /v1/auth/id-token. */
export const NATIVE_APP: NativeApp = { clientId: 'com.example.conformance', clientSecret: 'conformance-native-app', redirectUri: 'com.example.conformance:/oauth' };
export const OFFLINE_PROVIDER = 'offline-idp';
export const APP_LINK_URL = 'conformance-app://auth';

async function freshDatabase(dir: string): Promise<{ url: string; drop(): Promise<void> }> {
  const shared = process.env.DATABASE_URL;
  if (!shared?.startsWith('postgres')) return { url: `sqlite:${join(dir, 'gatehouse.db')}`, drop: async () => {} };
  // Its own database on the shared server: nothing left behind, nothing shared with other suites.
  const name = `gatehouse_conformance_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: shared });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(shared);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

async function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  await ensureServerBuilt();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/gatehouse.js', ...args], { cwd: SERVER_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

export async function startStack(): Promise<Stack> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-conformance-'));
  const cleanups: (() => Promise<unknown>)[] = [async () => rmSync(dir, { recursive: true, force: true })];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    const database = await freshDatabase(dir);
    cleanups.push(database.drop);
    const inbox = await startInbox();
    cleanups.push(inbox.close);
    const receiver = await startReceiver({ status: 200 });
    cleanups.push(receiver.close);
    // A native client: its loopback redirect URI matches whatever port the server gets (RFC 8252).
    // The second client is a native app that signs in with its ID token (POST /v1/auth/id-token);
    // the issuer puts the address in its ID tokens, as Apple and Google do.
    const issuer = await startTestIssuer([
      { client_id: 'gatehouse', client_secret: 'conformance-client-secret', application_type: 'native', redirect_uris: [`http://127.0.0.1/v1/auth/oidc/${OIDC_PROVIDER}/callback`] },
      nativeTestClient(NATIVE_APP),
    ], { claimsInIdToken: true });
    cleanups.push(issuer.close);
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? dir,
      DATABASE_URL: database.url,
      ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
      SMTP_URL: inbox.url,
      TRUST_PROXY: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      PUBLIC_RATE_LIMIT_PER_MINUTE: String(SERVER_LIMITS.publicPerMinute),
      LOGIN_MAX_FAILURES: String(SERVER_LIMITS.loginMaxFailures),
      ACCOUNT_RATE_LIMIT_PER_MINUTE: String(SERVER_LIMITS.accountRoutesPerMinute),
      LOG_LEVEL: 'warn',
      // /metrics on the public port is served only with a token: set, so the document's 200 and 401 are answered.
      METRICS_TOKEN,
      WEBAUTHN_RP_ID: new URL(PASSKEY_ORIGIN).hostname,
      WEBAUTHN_ORIGINS: PASSKEY_ORIGIN,
      APP_LINK_URL,
      ANONYMOUS_SIGN_IN: 'true',
      OIDC_PROVIDERS: JSON.stringify([
        { id: OIDC_PROVIDER, issuer: issuer.url, client_id: 'gatehouse', client_secret: 'conformance-client-secret', native_client_ids: [NATIVE_APP.clientId] },
        // Port 9 (discard) on loopback: nothing listens, so discovery fails at once.
        { id: OFFLINE_PROVIDER, issuer: 'http://127.0.0.1:9', client_id: 'gatehouse', client_secret: 'conformance-client-secret', native_client_ids: [NATIVE_APP.clientId] },
      ]),
    };
    const server = await startServer(env);
    cleanups.push(() => server.stop());

    const res = await fetch(`${server.base}/v1/openapi.json`);
    if (!res.ok) throw new Error(`GET /v1/openapi.json answered ${res.status}`);
    const doc = (await res.json()) as OpenApiDocument;
    const specFile = join(dir, 'openapi.json');
    writeFileSync(specFile, JSON.stringify(doc, null, 2));

    const [strict, lenient] = await Promise.all([
      startPrism(specFile, server.base, { validateRequest: true }),
      startPrism(specFile, server.base, { validateRequest: false }),
    ]);
    cleanups.push(strict.stop, lenient.stop);
    return { server, doc, specFile, strict, lenient, inbox, receiver, issuer, cli: (args) => runCli(args, env), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
