import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import fc from 'fast-check';
import type { FastifyInstance, RouteOptions } from 'fastify';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/kernel/ids.js';
import { routePolicy, type RoutePolicy } from '../src/http/route-policy.js';
import { openApiDocument, operationsOf, schemaResolver, type JsonSchema, type Operation } from './fuzz/openapi-operations.js';
import { bearer, createTestApp, dialect, type TestApp } from './harness.js';

/**
 * What every route demands is declared once, in its config (src/http/route-policy.ts), and one
 * step enforces it. This test holds the declarations to what the operations do, with a
 * classification of its own: an operation that grants power (adds a way in, changes who may act,
 * creates, rolls or widens a credential, changes the address or password, deletes) needs
 * step-up; an operation on a key needs the caller to hold the key's scopes. A new account route
 * fails here until someone classifies it. Then it calls every such route, as the declarations
 * say, to prove the one step enforces them.
 */

/** Account operations that grant power, and the step-up class each must declare. */
const GRANTS_POWER: Record<string, Exclude<RoutePolicy['stepUp'], 'never'>> = {
  createApiKey: 'always', // creates a credential
  decideOauthInteraction: 'always', // allowing gives an app a grant: a credential of its own
  rotateOauthAppSecret: 'always', // a new secret for an app's credential
  updateApiKey: 'always', // widens a credential (a later expiry, higher limits)
  rollApiKey: 'always', // a new secret for a credential
  changePassword: 'always',
  changeEmail: 'always',
  deleteMe: 'always',
  linkIdentity: 'always', // adds a way in
  unlinkIdentity: 'always', // removes one (a thief keeps theirs, the owner loses theirs)
  passkeyRegistrationOptions: 'always', // adds a way in
  addPasskey: 'always',
  upgradeGuest: 'always', // adds an address and a password: new ways in (a guest has no factor, so it passes)
  removePasskey: 'always',
  regenerateRecoveryCodes: 'always', // ten new ways past the factor
  deleteOrganization: 'always',
  updateOrganizationMember: 'always', // changes who may act: promotes, demotes, hands ownership over
  removeOrganizationMember: 'removing-another', // leaving gives up only one's own access
  createOrganizationInvitation: 'granting-role', // an admin or owner to be
  adminUpdateUser: 'always', // tiers, limits, disabling accounts
  adminUpdateOrganization: 'always',
};

/** Account operations that grant nothing a stolen session could turn against the owner, and why. */
const GRANTS_NOTHING: Record<string, string> = {
  continueOauthInteraction: 'goes on with a consent the person gave before: the app gets nothing it did not have',
  logout: 'takes access away',
  revokeSession: 'takes access away',
  revokeConnectedApp: 'takes access away (the app\'s tokens stop at once)',
  deleteOauthApp: 'takes access away (every grant to the app ends)',
  createOauthApp: 'registers an app, which gets nothing until a person allows it',
  revokeApiKey: 'takes access away (an owner fighting a thief needs it at once)',
  revokeOrganizationInvitation: 'takes access away',
  updateMe: 'renames',
  renamePasskey: 'renames',
  updateOrganization: 'renames',
  resendVerification: 'mails the account\'s own address',
  createOrganization: 'an empty team the caller alone is in',
  acceptInvitation: 'joins with a mailed link, only for the account\'s confirmed address',
  enrolTotp: 'no factor is on while enrolling (409 once it is); needs the password',
  confirmTotp: 'no factor is on until this call',
  disableTotp: 'its body proves the factor (a code), or the password after a recent step-up',
  stepUp: 'it is the proof',
};

/**
 * What a guest account (ANONYMOUS_SIGN_IN) is refused: every operation that grants power, creates a
 * webhook, a team or an OAuth app. The test reads it off the served routes, so a new route's
 * classification shows up here.
 */
const REFUSED_TO_GUESTS = [
  'createApiKey', 'updateApiKey', 'rollApiKey', 'decideOauthInteraction', 'rotateOauthAppSecret', 'createOauthApp', 'changePassword', 'changeEmail',
  'linkIdentity', 'unlinkIdentity', 'passkeyRegistrationOptions', 'addPasskey', 'removePasskey', 'regenerateRecoveryCodes',
  'createOrganization', 'deleteOrganization', 'enrolTotp', 'acceptInvitation', 'updateOrganizationMember', 'createOrganizationInvitation', 'adminUpdateUser', 'adminUpdateOrganization',
  'createWebhook', 'updateWebhook', 'deleteWebhook', 'testWebhook', 'redeliverWebhookDelivery', 'redeliverFailedWebhookDeliveries', 'rotateWebhookSecret',
].sort();

/** How each operation on one API key treats it. */
const KEY_OPERATIONS: Record<string, RoutePolicy['key']> = {
  getApiKey: 'reading',
  updateApiKey: 'holding-its-scopes',
  rollApiKey: 'holding-its-scopes',
  revokeApiKey: 'revoking',
};

interface Served { method: string; url: string; operationId: string | undefined; policy: RoutePolicy }

describe(`route policy (${dialect})`, () => {
  let t: TestApp;
  let operations: Map<string, Operation>;
  let resolve: (schema: JsonSchema) => JsonSchema;
  const served: Served[] = [];

  beforeAll(async () => {
    // Every route buildApp adds, wherever it is declared (Fastify announces each instance here).
    const collect = (message: unknown) => {
      (message as { fastify: FastifyInstance }).fastify.addHook('onRoute', (route: RouteOptions) => {
        const operationId = (route.schema as { operationId?: string } | undefined)?.operationId;
        for (const method of [route.method].flat()) served.push({ method, url: route.url, operationId, policy: routePolicy(route.config) });
      });
    };
    subscribe('fastify.initialization', collect);
    try {
      t = await createTestApp({ env: { MFA_STEP_UP_SECONDS: '600' } });
    } finally {
      unsubscribe('fastify.initialization', collect);
    }
    const doc = openApiDocument(t.app);
    resolve = schemaResolver(doc);
    operations = new Map(operationsOf(doc).flatMap((op) => {
      const operationId = served.find((r) => r.method === op.method && r.url.replace(/:(\w+)/g, '{$1}') === op.path)?.operationId;
      return operationId ? [[operationId, op]] : [];
    }));
  });
  afterAll(() => t.close());

  const accountWrites = () => served.filter((r) => (r.policy.auth === 'session' || r.policy.auth === 'admin') && !['GET', 'HEAD'].includes(r.method));

  describe('declarations', () => {
    it('the collection works (a silent hook would make every check below vacuous)', () => {
      expect(accountWrites().map((r) => r.operationId)).toEqual(expect.arrayContaining(['createApiKey', 'deleteOrganization', 'logout']));
    });

    it('refuses guests exactly what grants power, makes a webhook, a team or an OAuth app (a new route is classified by its declaration)', () => {
      const refused = served.filter((r) => r.policy.auth !== undefined && r.policy.guests === 'refused').map((r) => r.operationId ?? `${r.method} ${r.url}`);
      expect([...new Set(refused)].sort()).toEqual(REFUSED_TO_GUESTS);
      // A guest may always leave, and upgrade.
      for (const id of ['deleteMe', 'upgradeGuest']) expect(served.find((r) => r.operationId === id)?.policy.guests, id).toBe('allowed');
    });

    it('every account operation that grants power declares its step-up; every other one is classified here with a reason', () => {
      const problems: string[] = [];
      for (const route of accountWrites()) {
        const id = route.operationId ?? `${route.method} ${route.url}`;
        const expected = GRANTS_POWER[id];
        if (expected !== undefined && route.policy.stepUp !== expected) problems.push(`${id} grants power: declare stepUp '${expected}' (it declares '${route.policy.stepUp}')`);
        if (expected === undefined && GRANTS_NOTHING[id] === undefined) problems.push(`${id} is new: does it grant power? Add it to GRANTS_POWER or GRANTS_NOTHING in this test`);
        if (expected === undefined && GRANTS_NOTHING[id] !== undefined && route.policy.stepUp !== 'never') problems.push(`${id}: classified as granting nothing but declares stepUp '${route.policy.stepUp}'`);
      }
      for (const id of [...Object.keys(GRANTS_POWER), ...Object.keys(GRANTS_NOTHING)]) {
        if (!accountWrites().some((r) => r.operationId === id)) problems.push(`${id} is classified here but no longer served: drop it`);
      }
      expect(problems).toEqual([]);
    });

    it('every operation on one API key declares how it treats the key; changing or rolling one needs its scopes', () => {
      const onKeys = served.filter((r) => /\/api-keys\/:id(\/|$)/.test(r.url) && r.method !== 'HEAD');
      expect(onKeys.length).toBeGreaterThanOrEqual(4);
      const problems = onKeys.flatMap((r) => {
        const id = r.operationId ?? `${r.method} ${r.url}`;
        const expected = KEY_OPERATIONS[id];
        if (expected === undefined) return [`${id} acts on a key: add it to KEY_OPERATIONS in this test (does it change, roll or reveal the key?)`];
        return r.policy.key === expected ? [] : [`${id}: declare key '${expected}' (it declares '${r.policy.key}')`];
      });
      expect(problems).toEqual([]);
    });
  });

  /** The smallest request body the route's schema accepts (validation runs before the checks under test). */
  function minimalValue(schemaIn: JsonSchema, name = ''): unknown {
    const schema = resolve(schemaIn);
    if ('example' in schema && schema.type !== 'object') return schema.example;
    if (Array.isArray(schema.enum)) return schema.enum[0];
    if ('const' in schema) return schema.const;
    if ('default' in schema) return schema.default;
    const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
    if (alternatives) return minimalValue(alternatives.find((s) => resolve(s).type !== 'null') ?? alternatives[0]!, name);
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    if (type === 'object') {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const wanted = new Set((schema.required ?? []) as string[]);
      if (wanted.size < ((schema.minProperties as number | undefined) ?? 0)) for (const key of Object.keys(properties).slice(0, schema.minProperties as number)) wanted.add(key);
      return Object.fromEntries([...wanted].map((key) => [key, minimalValue(properties[key]!, key)]));
    }
    if (type === 'array') return Array.from({ length: (schema.minItems as number | undefined) ?? 0 }, () => minimalValue((schema.items ?? {}) as JsonSchema));
    if (type === 'integer' || type === 'number') return (schema.minimum as number | undefined) ?? 1;
    if (type === 'boolean') return false;
    if (type === 'null') return null;
    if (schema.format === 'email') return 'someone@example.com';
    if (schema.format === 'date-time') return new Date(t.clock.now() + 86_400_000).toISOString();
    if (schema.format === 'uri') return 'https://example.com/';
    const plain = 'x'.repeat(Math.max(1, (schema.minLength as number | undefined) ?? 1));
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(plain)) return fc.sample(fc.stringMatching(new RegExp(schema.pattern, 'u')), { seed: 1, numRuns: 1 })[0];
    return plain;
  }

  /** A request to `operationId` that passes validation: path ids from `ids`, the body its schema's smallest. */
  function requestTo(operationId: string, token: string, ids: Record<string, string>, overrides: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    const op = operations.get(operationId);
    if (!op) throw new Error(`${operationId} is not in the document`);
    const url = op.path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? 'x');
    const schema = op.bodies['application/json'];
    const body = schema ? { ...(minimalValue(schema) as object), ...overrides } : undefined;
    return t.request({ method: op.method as 'POST', url, headers: { ...bearer(token), ...headers }, ...(body === undefined ? {} : { payload: body }) });
  }

  describe('enforcement, route by route', () => {
    it('every route declaring step-up refuses a session that has not proved its factor recently, before it does anything', async () => {
      // An administrator with TOTP whose session proved it at enrolment, then let the window pass.
      const user = await t.signUp();
      await t.confirmEmail(user.id);
      await t.deps.database.db.updateTable('users').set({ role: 'admin' }).where('id', '=', user.id).execute();
      await t.deps.accounts.changed(user.id);
      const token = user.tokens.access_token;
      const { otpauth_url: url } = (await t.request({ method: 'POST', url: '/v1/users/me/mfa/totp', headers: bearer(token), payload: { password: user.password } })).json();
      const totp = OTPAuth.URI.parse(url) as OTPAuth.TOTP;
      expect((await t.request({ method: 'POST', url: '/v1/users/me/mfa/totp/confirm', headers: bearer(token), payload: { code: totp.generate({ timestamp: t.clock.now() }) } })).statusCode).toBe(200);
      t.clock.advance(601_000);

      const declared = served.filter((r) => r.policy.stepUp !== 'never' && r.operationId);
      expect(declared.length).toBeGreaterThanOrEqual(Object.keys(GRANTS_POWER).length);
      // The organization routes act on one the caller is in (the authenticate step answers 404 for
      // any other, before step-up); the key routes on a key that is not there (the route's own 404 comes after).
      const personal = (await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(token) })).json().personal_organization_id as string;
      const ids = { id: personal, user_id: newId('user'), uid: 'an-interaction-that-is-not-there' }; // someone else (removing-another); no such interaction
      const problems: string[] = [];
      for (const route of declared) {
        const id = route.operationId!;
        const overrides = route.policy.stepUp === 'granting-role' ? { role: 'admin' } : {};
        const res = await requestTo(id, token, ids, overrides);
        if (res.statusCode !== 403 || res.json().code !== 'mfa_required') problems.push(`${id}: ${res.statusCode} ${res.body.slice(0, 160)}`);
      }
      expect(problems).toEqual([]);
    });

    it('every route changing or rolling a key refuses a caller who may not hold its scopes, and the key is untouched', async () => {
      // A service administrator's key with a service scope, in a team whose other admin is no service administrator.
      const service = await t.signUp();
      await t.confirmEmail(service.id);
      await t.deps.database.db.updateTable('users').set({ role: 'admin' }).where('id', '=', service.id).execute();
      await t.deps.accounts.changed(service.id);
      const team = (await t.request({ method: 'POST', url: '/v1/organizations', headers: bearer(service.tokens.access_token), payload: { name: 'Keys' } })).json() as { id: string };
      const admin = await t.signUp();
      await t.confirmEmail(admin.id);
      await t.deps.database.db.insertInto('memberships').values({ org_id: team.id, user_id: admin.id, role: 'admin', created_at: new Date(t.clock.now()).toISOString() }).execute();
      const inTeam = { 'gatehouse-organization': team.id };
      const created = await t.request({ method: 'POST', url: '/v1/api-keys', headers: { ...bearer(service.tokens.access_token), ...inTeam }, payload: { name: 'verifier', scopes: ['credentials:verify'] } });
      expect(created.statusCode, created.body).toBe(201);
      const key = created.json() as { id: string; key: string };
      const before = await t.deps.database.db.selectFrom('api_keys').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow();

      const holding = served.filter((r) => r.policy.key === 'holding-its-scopes');
      expect(holding.map((r) => r.operationId)).toEqual(expect.arrayContaining(['updateApiKey', 'rollApiKey']));
      const problems: string[] = [];
      for (const route of holding) {
        const res = await requestTo(route.operationId!, admin.tokens.access_token, { id: key.id }, {}, inTeam);
        if (res.statusCode !== 403) problems.push(`${route.operationId}: ${res.statusCode} ${res.body.slice(0, 160)}`);
      }
      expect(problems).toEqual([]);
      expect(await t.deps.database.db.selectFrom('api_keys').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow()).toEqual(before);
    });

    it('every route declaring an organization role refuses a viewer with insufficient_role, naming the role it declares', async () => {
      const owner = await t.signUp();
      const team = (await t.request({ method: 'POST', url: '/v1/organizations', headers: bearer(owner.tokens.access_token), payload: { name: 'Roles' } })).json() as { id: string };
      const viewer = await t.signUp();
      await t.deps.database.db.insertInto('memberships').values({ org_id: team.id, user_id: viewer.id, role: 'viewer', created_at: new Date(t.clock.now()).toISOString() }).execute();
      const declared = served.filter((r) => r.policy.auth === 'session' && r.policy.role !== undefined && r.policy.role !== 'viewer' && r.operationId);
      expect(declared.map((r) => r.operationId)).toEqual(expect.arrayContaining(['deleteOrganization', 'updateOrganizationMember', 'createApiKey']));
      const ids = { id: team.id, user_id: owner.id, invitation_id: newId('invitation') };
      const problems: string[] = [];
      for (const route of declared) {
        const res = await requestTo(route.operationId!, viewer.tokens.access_token, ids, {}, { 'gatehouse-organization': team.id });
        const body = res.json() as { code?: string; required_role?: string };
        if (res.statusCode !== 403 || body.code !== 'insufficient_role' || body.required_role !== route.policy.role) problems.push(`${route.operationId}: ${res.statusCode} ${res.body.slice(0, 160)}`);
      }
      expect(problems).toEqual([]);
    });
  });
});
