import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redoclyLint } from '../redocly-lint.js';
import { ContractClient, Coverage } from './contract-client.js';
import { randomIp, signUpAdmin, type Actor, type Context } from './context.js';
import { coverageGaps } from './coverage.js';
import { accountJourney } from './journeys/account.js';
import { accountOperationsJourney } from './journeys/account-operations.js';
import { adminJourney } from './journeys/admin.js';
import { agentsJourney } from './journeys/agents.js';
import { apiKeysJourney } from './journeys/api-keys.js';
import { authJourney } from './journeys/auth.js';
import { canaryJourney } from './journeys/canary.js';
import { chatsJourney } from './journeys/chats.js';
import { guestsJourney } from './journeys/guests.js';
import { mfaJourney } from './journeys/mfa.js';
import { passwordlessJourney } from './journeys/passwordless.js';
import { identitiesJourney } from './journeys/identities.js';
import { passkeysJourney } from './journeys/passkeys.js';
import { operationsJourney } from './journeys/operations.js';
import { oauthJourney } from './journeys/oauth.js';
import { organizationsJourney } from './journeys/organizations.js';
import { rateLimitJourney } from './journeys/rate-limits.js';
import { sdkJourney } from './journeys/sdk.js';
import { streamsJourney } from './journeys/streams.js';
import { usageHistoryJourney } from './journeys/usage-history.js';
import { webhooksJourney } from './journeys/webhooks.js';
import { operationsOf } from './spec.js';
import { startStack, type Stack } from './stack.js';
import { credentialSweeps } from './sweeps/credentials.js';
import { idempotencySweeps } from './sweeps/idempotency.js';
import { requestSweeps } from './sweeps/requests.js';

/**
 * Contract conformance by tools we did not write (issue 8): the published OpenAPI document passes
 * redocly lint, and every operation it lists is driven through Stoplight Prism's validating proxy
 * against a real server process; any request or answer that breaks the document fails the run.
 * See README.md beside this file.
 */
const postgres = Boolean(process.env.DATABASE_URL?.startsWith('postgres'));
const dialect = (postgres ? 'postgres' : 'sqlite') + (process.env.REDIS_URL ? ' + redis' : '');

describe(`contract conformance through Prism (${dialect})`, () => {
  let stack: Stack | undefined;
  let context: Context | undefined;
  const ctx = (): Context => {
    if (!context) throw new Error('the stack did not start');
    return context;
  };

  beforeAll(async () => {
    stack = await startStack();
    const api = new ContractClient(operationsOf(stack.doc), { strict: stack.strict.base, lenient: stack.lenient.base, upstream: stack.server.base }, new Coverage(), randomIp());
    let admin: Promise<Actor> | undefined;
    let serviceKey: Promise<string> | undefined;
    const getAdmin = () => (admin ??= signUpAdmin(stack!, api));
    context = {
      stack, api, postgres, admin: getAdmin,
      serviceKey: () => (serviceKey ??= getAdmin().then(async (a) => (await a.api.call('createApiKey', { token: a.access, json: { name: 'conformance service', scopes: ['credentials:verify'] } }, 201)).body.key as string)),
    };
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('publishes a document that passes redocly lint', async () => {
    const result = await redoclyLint(ctx().stack.specFile);
    if (result.warnings.length) console.warn(`redocly lint: ${result.warnings.length} warning(s)\n  ${result.warnings.join('\n  ')}`);
    expect(result.errors).toEqual([]);
    expect(result.code).toBe(0);
  }, 90_000);

  canaryJourney(ctx);
  operationsJourney(ctx);
  oauthJourney(ctx);
  authJourney(ctx);
  accountJourney(ctx);
  accountOperationsJourney(ctx);
  mfaJourney(ctx);
  passwordlessJourney(ctx);
  guestsJourney(ctx);
  passkeysJourney(ctx);
  identitiesJourney(ctx);
  apiKeysJourney(ctx);
  usageHistoryJourney(ctx);
  agentsJourney(ctx);
  chatsJourney(ctx);
  streamsJourney(ctx);
  webhooksJourney(ctx);
  adminJourney(ctx);
  organizationsJourney(ctx);
  rateLimitJourney(ctx);
  sdkJourney(ctx);
  credentialSweeps(ctx);
  requestSweeps(ctx);
  idempotencySweeps(ctx);

  // Last: what the run above sent. A new route, or a new documented status, cannot go unexercised.
  it('exercised every operation of the document through the proxy, and every documented status', () => {
    const { api, stack: s } = ctx();
    const gaps = coverageGaps(operationsOf(s.doc), api.coverage, { requestsInterleave: postgres });
    // One assertion, so a failure lists every gap at once.
    expect(gaps).toEqual({ withoutSuccess: [], unexercisedStatuses: [], staleExemptions: [] });
  });
});
