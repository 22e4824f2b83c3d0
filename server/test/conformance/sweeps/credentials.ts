import { describe, expect, it } from 'vitest';
import { ownOrganization, randomIp, signUp, sweepIds, type GetContext } from '../context.js';
import { SERVER_LIMITS } from '../stack.js';
import { newId } from '../../../src/kernel/ids.js';
import { BUDGET_EXEMPT, CALLER_FREE, ORGANIZATION_SCOPED, REQUIREMENTS, secured, unknownIds } from './operations.js';

/** A key of the right shape with a wrong checksum, and a JWT signed by nobody we know. */
const FORGED_KEY = `gth_${'A'.repeat(34)}000000`;
const FORGED_JWT = 'eyJhbGciOiJFZERTQSIsImtpZCI6Im5vcGUiLCJ0eXAiOiJKV1QifQ.eyJzdWIiOiJ1c3JfeCJ9.c2lnbmF0dXJl';

/**
 * Every protected operation of the document, driven generically: no credential, a bad one, the
 * wrong kind, a missing scope, an exhausted budget. A new route gets these for free.
 */
export function credentialSweeps(ctx: GetContext): void {
  describe('every protected operation: credentials, scopes, budgets', () => {
    it('the requirements table covers exactly the operations the document protects', () => {
      const protectedIds = secured(ctx().api.operations()).map((op) => op.operationId).sort();
      expect(protectedIds).toEqual(Object.keys(REQUIREMENTS).sort());
    });

    it('without a credential, the document itself refuses the request (Prism answers 401)', async () => {
      const { api } = ctx();
      for (const op of secured(api.operations())) {
        const violations = await api.refused(op.operationId, { path: unknownIds(op) });
        expect(violations.map((v) => v.location), op.operationId).toContain('UNAUTHORIZED');
      }
    });

    it('with a forged API key or JWT, the server answers the documented 401', async () => {
      const { api } = ctx();
      for (const op of secured(api.operations())) {
        for (const token of [FORGED_KEY, FORGED_JWT]) {
          const answer = await api.callInvalid(op.operationId, { token, path: unknownIds(op) }, 401);
          expect(answer.headers.get('www-authenticate'), op.operationId).toMatch(/^Bearer .*error="invalid_token"/);
        }
      }
    });

    it('an API key gets 403 session_required on account management and admin operations', async () => {
      const actor = await signUp(ctx().api, 'keyholder');
      const key = (await actor.api.call('createApiKey', { token: actor.access, json: { name: 'all scopes' } }, 201)).body.key;
      for (const [operationId, requirement] of Object.entries(REQUIREMENTS)) {
        if (requirement !== 'session' && requirement !== 'admin') continue;
        const answer = await actor.api.callInvalid(operationId, { token: key, path: unknownIds(actor.api.operation(operationId)) }, 403);
        expect(answer.body.code, operationId).toBe('session_required');
      }
    });

    it('a malformed Gatehouse-Organization gets 400 invalid_request, an organization the caller is not in 403 not_a_member', async () => {
      const actor = await signUp(ctx().api, 'wanderer');
      // Both are refused before any budget is spent or any stream opens.
      const elsewhere = newId('organization');
      for (const op of secured(actor.api.operations())) {
        if (!ORGANIZATION_SCOPED.has(op.operationId)) continue;
        const call = (organization: string) => ({ token: actor.access, path: unknownIds(op), headers: { 'gatehouse-organization': organization } });
        expect((await actor.api.callInvalid(op.operationId, call('acme'), 400)).body.code, op.operationId).toBe('invalid_request');
        expect((await actor.api.callInvalid(op.operationId, call(elsewhere), 403)).body.code, op.operationId).toBe('not_a_member');
      }
    });

    it('a key without the scope gets 403 insufficient_scope', async () => {
      const actor = await signUp(ctx().api, 'scoped');
      const keyWith = async (scope: string) => (await actor.api.call('createApiKey', { token: actor.access, json: { name: scope, scopes: [scope] } }, 201)).body.key;
      const usageOnly = await keyWith('usage:read');
      const agentsOnly = await keyWith('agents:read');
      for (const [operationId, requirement] of Object.entries(REQUIREMENTS)) {
        // 'any' (streamEvents) needs no scope: a usage-only key is admitted, to an endless stream.
        if (requirement === 'session' || requirement === 'admin' || requirement === 'any') continue;
        const token = requirement === 'usage:read' ? agentsOnly : usageOnly;
        const answer = await actor.api.callInvalid(operationId, { token, path: unknownIds(actor.api.operation(operationId)) }, 403);
        expect(answer.body.code, operationId).toBe('insufficient_scope');
      }
    });

    it('a user who is not an admin gets 403 forbidden on the admin API', async () => {
      const actor = await signUp(ctx().api, 'notadmin');
      for (const [operationId, requirement] of Object.entries(REQUIREMENTS)) {
        if (requirement !== 'admin') continue;
        const answer = await actor.api.callInvalid(operationId, { token: actor.access, path: unknownIds(actor.api.operation(operationId)) }, 403);
        expect(answer.body.code, operationId).toBe('forbidden');
      }
    });

    it('an account over its budget gets 429 rate_limited on every platform operation, and can still manage itself', async () => {
      const admin = await ctx().admin();
      const actor = await signUp(ctx().api, 'spent');
      // One request a minute and one a day: after the first, nothing passes, however slow the sweep.
      await admin.api.call('adminUpdateUser', { token: admin.access, path: { id: actor.id }, json: { tier: 'enterprise', limits: { per_minute: 1, per_day: 1 } } }, 200);
      await actor.api.call('listAgents', { token: actor.access }, 200);
      for (const op of secured(actor.api.operations())) {
        if (BUDGET_EXEMPT.has(op.operationId) || CALLER_FREE.has(op.operationId)) continue;
        const answer = await actor.api.callInvalid(op.operationId, { token: actor.access, path: unknownIds(op) }, 429);
        expect(answer.body.code, op.operationId).toBe('rate_limited');
        expect(Number(answer.headers.get('retry-after')), op.operationId).toBeGreaterThan(0);
      }
      for (const operationId of ['getMe', 'getUsage', 'listApiKeys', 'listSessions', 'listSecurityEvents']) {
        const answer = await actor.api.call(operationId, { token: actor.access }, 200);
        expect(answer.headers.get('ratelimit'), operationId).toBeNull();
      }
    });

    it(`an account over its account-route limit (${SERVER_LIMITS.accountRoutesPerMinute}/min) gets 429 on every operation that spends no budget`, async () => {
      const actor = await signUp(ctx().api, 'restless');
      let token = actor.access;
      // Spends the limit until refused. The bucket refills while the sweep runs (a slow CI machine
      // refills more), so it is drained again whenever an operation got through; the bounds only
      // keep a broken limit from looping for ever.
      const drain = async () => {
        let answer = await actor.api.call('getMe', { token }, [200, 429]);
        for (let i = 0; answer.status === 200 && i < SERVER_LIMITS.accountRoutesPerMinute * 5; i++) {
          answer = await actor.api.call('getMe', { token }, [200, 429]);
        }
        expect(answer.status, 'the account-route limit never refused').toBe(429);
      };
      await ownOrganization(actor); // the organization operations act on it: read before any draining
      for (const op of secured(actor.api.operations())) {
        if (!BUDGET_EXEMPT.has(op.operationId)) continue;
        // Drained right before each call; should one request still be admitted on a loaded machine
        // (its answer is accepted, whatever it is), drain and try again. A logout that got through
        // ended the session: log in again first.
        const path = await sweepIds(op, actor);
        await drain();
        let refused = await actor.api.callInvalid(op.operationId, { token, path });
        for (let i = 0; refused.status !== 429 && i < 10; i++) {
          if (op.operationId === 'logout') token = (await actor.api.call('login', { json: { username: actor.email, password: actor.password } }, 200)).body.access_token;
          await drain();
          refused = await actor.api.callInvalid(op.operationId, { token, path });
        }
        expect(refused.body.code, op.operationId).toBe('rate_limited');
        expect(Number(refused.headers.get('retry-after')), op.operationId).toBeGreaterThan(0);
      }
      // The budget is another matter: platform operations still answer.
      await actor.api.call('listAgents', { token }, 200);
    });

    it(`an address over the public budget (${SERVER_LIMITS.publicPerMinute}/min) gets 429 on every rate-limited public operation`, async () => {
      const { api } = ctx();
      const limitedPublic = api.operations().filter((op) => !op.secured && op.statuses.includes('429'));
      expect(limitedPublic.map((op) => op.operationId)).toContain('register');
      for (const op of limitedPublic) {
        const client = api.from(randomIp());
        // An empty object (no body on a GET): the per-address check comes first, so this spends the
        // budget without argon2 (an operation without a body answers 200, a browser step 400). The bucket refills one request per 6 s,
        // so a slow machine may get one or two more.
        let admitted = 0;
        const call = { path: unknownIds(op), ...(op.method === 'GET' ? {} : { json: {} }) };
        let answer = await client.callInvalid(op.operationId, call, [200, 400, 429]);
        for (; answer.status !== 429 && admitted < SERVER_LIMITS.publicPerMinute + 5; admitted++) {
          answer = await client.callInvalid(op.operationId, call, [200, 400, 429]);
        }
        expect(answer.body.code, op.operationId).toBe('rate_limited');
        expect(admitted, op.operationId).toBeGreaterThanOrEqual(SERVER_LIMITS.publicPerMinute);
        expect(Number(answer.headers.get('retry-after')), op.operationId).toBeGreaterThan(0);
      }
    });
  });
}
