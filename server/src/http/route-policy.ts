import type { FastifyContextConfig, FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { roleForScope, type OrgRole } from '../kernel/access-terms/roles.js';
import { assertMayHoldScopes, isServiceScope } from '../kernel/access-terms/scopes.js';
import type { AuthRequirement, BudgetMode } from './route-config.js';
import { isId } from '../kernel/ids.js';
import { addResponses } from './route-hooks.js';
import { problemResponses } from './schemas.js';

/**
 * When a session must have proved its second factor recently (MFA_STEP_UP_SECONDS) before the
 * route runs, on an account that has one:
 * - 'always': the operation grants power (adds a way in, changes who may act, creates, rolls or
 *   widens a credential, changes the address or password, deletes);
 * - 'granting-role': when the body's `role` is admin or owner (an invitation);
 * - 'removing-another': when the path's `user_id` is someone else (leaving gives up only one's own access);
 * - 'never': it grants nothing a stolen access token could turn against the owner (renaming,
 *   revoking, signing out: the owner fighting a thief must be able to do these with what they have).
 */
export type StepUpClass = 'always' | 'granting-role' | 'removing-another' | 'never';

/**
 * How a route under /api-keys/{id} treats the key it acts on:
 * - 'holding-its-scopes': the caller must be able to hold every scope the key holds now, so no one
 *   takes over, through a roll or an update, a key stronger than themselves: service scopes only a
 *   service administrator (the platform scopes are all an admin's, and acting on another member's
 *   key needs admin; a member's own key works no further than their role now, whatever it holds);
 * - 'revoking': taking a key's power away needs no more than the role the service checks (an
 *   admin must be able to stop a leaked key of anyone in the organization);
 * - 'reading': reads what every member sees (never a secret).
 */
export type KeyAccess = 'holding-its-scopes' | 'revoking' | 'reading';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** See StepUpClass. Required on every 'session' or 'admin' route that is not a GET. */
    stepUp?: StepUpClass;
    /** See KeyAccess. Required on every route whose path names one API key. */
    key?: KeyAccess;
    /**
     * The least organization role the operation needs, where the route says it itself (routes
     * with a platform scope need the role that allows the scope). Organization routes check it
     * inside their transaction, under the organization's lock; the document shows it.
     */
    role?: OrgRole;
    /**
     * Where the organization the request acts for comes from, when the route is a 'session' or
     * 'admin' one (a scope or 'any' route always reads the header):
     * - 'header': Gatehouse-Organization (the route acts on an organization's resources: its API
     *   keys, its name in GET /users/me); absent, the personal one;
     * - 'path': its path's `:id` (the /organizations/{id} routes); the authenticate step decides it
     *   with the caller's role, as for every other route, and one the caller is not in is 404, as
     *   for one that does not exist.
     * Absent: the route manages the user's own account and ignores the header.
     */
    organization?: 'header' | 'path';
    /**
     * Whether a guest (ANONYMOUS_SIGN_IN: an account without an address, made with one click) may
     * call it. Absent: refused when the route grants power (stepUp 'always' or 'granting-role':
     * a lasting credential, a new way in, a change of who may act) or creates webhooks, allowed
     * otherwise. A guest's refusal is 403 `guest_not_allowed`: upgrade the account first.
     */
    guests?: 'allowed' | 'refused';
  }
}

/** Everything a route demands, as one value: the reading of its config that every step uses. */
export interface RoutePolicy {
  /** Who may call it: undefined for a public route. */
  auth: AuthRequirement | undefined;
  /** Whether an API key may call it at all (access tokens only for account management). */
  apiKeys: boolean;
  /** The least organization role (declared, or the one the scope needs). */
  role: OrgRole | undefined;
  stepUp: StepUpClass;
  key: KeyAccess | undefined;
  /** Service scopes work only while the credential's owner is a service administrator. */
  serviceScope: boolean;
  budget: BudgetMode;
  /**
   * Where the organization the request acts for comes from: 'path' (the path's `:id`), 'header'
   * (Gatehouse-Organization, or an API key's own), 'own' (the caller's personal organization, or
   * an API key's own: managing one's own account ignores the header).
   */
  organization: 'path' | 'header' | 'own';
  /**
   * The resource the route is part of: 'api' takes every credential but an app's token bound to
   * the MCP endpoint; 'mcp' takes only such a token.
   */
  resource: 'api' | 'mcp';
  /** Whether a guest account may call it (see FastifyContextConfig.guests). */
  guests: 'allowed' | 'refused';
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function routePolicy(config: FastifyContextConfig | undefined): RoutePolicy {
  const auth = config?.auth;
  const account = auth === 'session' || auth === 'admin';
  const scope = auth !== undefined && !account && auth !== 'any' ? auth : undefined;
  return {
    auth,
    apiKeys: auth !== undefined && !account,
    role: config?.role ?? (scope !== undefined && !isServiceScope(scope) ? roleForScope(scope) : undefined),
    stepUp: config?.stepUp ?? 'never',
    key: config?.key,
    serviceScope: scope !== undefined && isServiceScope(scope),
    budget: config?.budget ?? 'spend',
    organization: config?.organization ?? (auth !== undefined && !account ? 'header' : 'own'),
    resource: config?.resource ?? 'api',
    guests: config?.guests ?? (config?.stepUp === 'always' || config?.stepUp === 'granting-role' || auth === 'webhooks:write' ? 'refused' : 'allowed'),
  };
}

/**
 * Refuses, when the app is built, a route whose declaration leaves a rule to chance: so a new
 * route cannot forget what its siblings demand.
 */
function assertDeclared(route: RouteOptions): void {
  const where = `${[route.method].flat().join(',')} ${route.url}`;
  const config = route.config;
  const account = config?.auth === 'session' || config?.auth === 'admin';
  const writes = [route.method].flat().some((method) => !READ_METHODS.has(method));
  if (config?.resource === 'mcp' && (config.auth !== 'any' || config.stepUp !== undefined)) throw new Error(`${where}: an MCP route declares auth: 'any' (each tool checks its scope) and no step-up`);
  if (config?.guests !== undefined && config.auth === undefined) throw new Error(`${where}: config.guests is for routes with auth (a public route has no caller)`);
  if (config?.stepUp !== undefined && !account) throw new Error(`${where}: stepUp needs auth: 'session' or 'admin' (API keys have no second factor)`);
  if (account && writes && config?.stepUp === undefined) throw new Error(`${where}: declare config.stepUp ('always', 'granting-role', 'removing-another' or 'never'): does it grant power?`);
  if (config?.stepUp === 'removing-another' && !route.url.includes(':user_id')) throw new Error(`${where}: stepUp 'removing-another' needs a :user_id in the path`);
  if (/\/api-keys\/:id(\/|$)/.test(route.url) && config?.key === undefined) throw new Error(`${where}: declare config.key: how it treats the key it acts on`);
  const onOrganization = /^\/v1\/organizations\/:id(\/|$)/.test(route.url);
  if (onOrganization !== (config?.organization === 'path')) throw new Error(`${where}: config.organization 'path' is for the routes under /organizations/:id, and every one of them declares it`);
}

export interface RoutePolicyDeps {
  /** Checks a session's recent second factor; throws mfa_required (the mfa module implements it). */
  requireRecentFactor(userId: string, sessionId: string): Promise<void>;
  /** The scopes a live key of the organization holds now; undefined when there is none (the route answers 404). */
  keyScopes(orgId: string, keyId: string): Promise<readonly string[] | undefined>;
}

const GRANTED_ROLES = new Set(['admin', 'owner']);

/**
 * The one step that enforces what the authenticate step cannot (it runs before the body is
 * read): step-up and the key's scopes, first among the preHandlers (before an idempotency claim,
 * so a refused request leaves no claim behind). Register after idempotency.
 */
export function registerRoutePolicy(app: FastifyInstance, deps: RoutePolicyDeps): void {
  // The authenticate step (onRequest) set the caller on every route these checks are put on.
  const stepUp = async (request: FastifyRequest) => {
    await deps.requireRecentFactor(request.auth!.userId, request.auth!.sessionId!);
  };
  const holdsKey = async (request: FastifyRequest) => {
    const { id } = request.params as { id: string };
    if (!isId('apiKey', id)) return; // the route answers 404
    const scopes = await deps.keyScopes(request.organization!.org.id, id);
    if (scopes !== undefined) assertMayHoldScopes(scopes, request.account!.role);
  };
  app.addHook('onRoute', (route: RouteOptions) => {
    assertDeclared(route);
    const policy = routePolicy(route.config);
    const checks: ((request: FastifyRequest) => Promise<void>)[] = [];
    if (policy.stepUp === 'always') checks.push(stepUp);
    if (policy.stepUp === 'granting-role') {
      checks.push(async (request) => {
        const role = (request.body as { role?: unknown } | undefined)?.role;
        if (typeof role === 'string' && GRANTED_ROLES.has(role)) await stepUp(request);
      });
    }
    if (policy.stepUp === 'removing-another') {
      checks.push(async (request) => {
        if ((request.params as { user_id?: string }).user_id !== request.auth!.userId) await stepUp(request);
      });
    }
    if (policy.key === 'holding-its-scopes') checks.push(holdsKey);
    if (checks.length === 0) return;
    route.preHandler = [...checks, ...(route.preHandler ? [route.preHandler].flat() : [])];
    addResponses(route, problemResponses([403]));
  });
}
