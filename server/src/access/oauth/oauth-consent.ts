import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Kysely } from 'kysely';
import type { AccountCache, SecurityLog } from '../../identity/index.js';
import type { ClientInfo } from '../../kernel/client-info.js';
import type { Clock } from '../../kernel/clock.js';
import { isoTime } from '../../kernel/clock.js';
import type { Database } from '../../kernel/db/schema.js';
import { ROLE_SCOPES } from '../../kernel/access-terms/roles.js';
import { isUserScope } from '../../kernel/access-terms/scopes.js';
import { AppError } from '../../kernel/errors.js';
import { recordEvent, type RecordedEvent } from '../../kernel/events/event-outbox.js';
import type { OrganizationCache } from '../organizations/organization-cache.js';
import type { AuthorizationServer } from './authorization-server.js';

type Request = IncomingMessage;
type Response = ServerResponse;
type Provider = Awaited<ReturnType<AuthorizationServer['engine']>>;
type Details = Awaited<ReturnType<Provider['interactionDetails']>>;


export interface OauthConsentDeps {
  server: AuthorizationServer;
  db: Kysely<Database>;
  clock: Clock;
  accounts: Pick<AccountCache, 'get'>;
  organizations: Pick<OrganizationCache, 'get'>;
  securityLog: Pick<SecurityLog, 'record'>;
  /** After the commit: wakes the webhook deliveries of `oauth.grant.created`. */
  onEvent: (...events: RecordedEvent[]) => void;
}

/**
 * The person's side of an authorization: what the app asks for (narrowed to what it was
 * registered for), and the answer. Allowing makes a grant for one organization with the scopes
 * the person's role there allows, records it in `oauth_grants`, and hands the engine the result;
 * its `redirect_to` continues the flow in the browser.
 */
interface ConsentView {
  asked: string[];
  askedOpenId: string[];
  client: { id: string; name: string; registered_by: { organization_id: string; organization_name: string } | null };
  redirect_uri: string;
  scopes: string[];
  offline_access: boolean;
  resource: string;
}

export function createOauthConsent(deps: OauthConsentDeps) {
  const { server, db } = deps;

  async function interaction(req: Request, res: Response) {
    const engine = await server.engine();
    let details: Awaited<ReturnType<typeof engine.interactionDetails>>;
    try {
      details = await engine.interactionDetails(req, res);
    } catch {
      throw new AppError('not_found', 'This authorization has expired or was begun in another browser; start it again from the app.');
    }
    const clientId = String(details.params.client_id);
    const client = await db.selectFrom('oauth_clients')
      .leftJoin('organizations', 'organizations.id', 'oauth_clients.org_id')
      .select(['oauth_clients.name', 'oauth_clients.scopes', 'oauth_clients.metadata', 'oauth_clients.org_id', 'organizations.name as org_name'])
      .where('oauth_clients.client_id', '=', clientId).executeTakeFirst();
    if (!client) throw new AppError('not_found', 'The app that began this authorization is no longer registered.');
    // One resource per grant: a second `resource` would make a grant the engine could never match.
    if (Array.isArray(details.params.resource)) throw new AppError('validation_failed', 'Ask for one resource at a time.');
    const registered = new Set(client.scopes.split(' ').filter(Boolean));
    const asked = String(details.params.scope ?? '').split(' ').filter(Boolean);
    const askedPlatform = asked.filter(isUserScope);
    // No platform scope asked for: the app gets what it was registered for.
    const scopes = (askedPlatform.length > 0 ? askedPlatform : [...registered]).filter((s) => registered.has(s));
    const grantTypes = (JSON.parse(client.metadata) as { grant_types?: string[] }).grant_types ?? [];
    const view: ConsentView = {
      asked: askedPlatform,
      askedOpenId: asked.filter((s) => s === 'openid'),
      // Who registered the app: the person sees whether it comes from their own organization.
      client: { id: clientId, name: client.name, registered_by: client.org_id === null ? null : { organization_id: client.org_id, organization_name: client.org_name ?? '' } },
      redirect_uri: String(details.params.redirect_uri ?? ''),
      scopes,
      offline_access: grantTypes.includes('refresh_token'),
      resource: String(details.params.resource ?? server.resources.api),
    };
    return { engine, details, view };
  }

  /**
   * The engine's own login session plays no part: who is signed in is the dashboard's session,
   * checked on every answer. A session the engine kept from an earlier answer in this browser
   * (perhaps another person's) is ended before this answer is given, so the engine neither acts
   * on it nor asks to sign that person out first.
   */
  async function forgetEngineSession(engine: Provider, details: Details): Promise<void> {
    if (!details.session) return;
    if (details.session.uid) await (await engine.Session.findByUid(details.session.uid))?.destroy();
    delete details.session;
    await details.save(details.exp - Math.floor(Date.now() / 1000));
  }

  /** Hands the engine the answer, on an interaction freed of any earlier engine session. */
  async function answer(req: Request, res: Response, engine: Provider, details: Details, result: Parameters<Provider['interactionResult']>[2]): Promise<string> {
    await forgetEngineSession(engine, details);
    return engine.interactionResult(req, res, result, { mergeWithLastSubmission: false });
  }

  /**
   * A consent the person gave before that covers this request: a grant of theirs to the same app
   * for the same resource, still active here and in the engine, holding every scope the app would
   * get in that organization now. Asking for more (or for another resource) finds none.
   */
  async function rememberedGrant(engine: Provider, userId: string, view: ConsentView): Promise<{ grantId: string; orgId: string } | undefined> {
    const grants = await db.selectFrom('oauth_grants').select(['grant_id', 'org_id', 'scopes'])
      .where('user_id', '=', userId).where('client_id', '=', view.client.id).where('resource', '=', view.resource).where('revoked_at', 'is', null)
      .orderBy('created_at', 'desc').execute();
    for (const grant of grants) {
      const membership = await deps.organizations.get(grant.org_id, userId);
      if (!membership) continue;
      const held = new Set(grant.scopes.split(' '));
      const wanted = view.scopes.filter((s) => ROLE_SCOPES[membership.role].has(s));
      if (wanted.length === 0 || !wanted.every((s) => held.has(s))) continue;
      const kept = await engine.Grant.find(grant.grant_id);
      // Sign-in with this platform (openid) was allowed too, if the app asks for it now.
      if (kept && view.askedOpenId.every((s) => kept.getOIDCScope().split(' ').includes(s))) return { grantId: grant.grant_id, orgId: grant.org_id };
    }
    return undefined;
  }

  return {
    /** What the app asks for, and whether the person allowed as much before (the page then continues at once). */
    async details(req: Request, res: Response, userId: string) {
      const { engine, view } = await interaction(req, res);
      const { asked: _asked, askedOpenId: _openId, ...shown } = view;
      const remembered = await rememberedGrant(engine, userId, view);
      return { ...shown, remembered_organization_id: remembered?.orgId ?? null };
    },

    /** Goes on with the consent the person gave before (details' `remembered_organization_id`); 409 when there is none to go on with. */
    async continueRemembered(req: Request, res: Response, userId: string): Promise<string> {
      const { engine, details, view } = await interaction(req, res);
      const remembered = await rememberedGrant(engine, userId, view);
      if (!remembered) throw new AppError('conflict', 'There is no earlier consent that covers what this app asks for now: answer with allow or deny.');
      return answer(req, res, engine, details, { login: { accountId: userId }, consent: { grantId: remembered.grantId } });
    },

    async allow(req: Request, res: Response, userId: string, organizationId: string | undefined, client: ClientInfo): Promise<string> {
      const { engine, details, view } = await interaction(req, res);
      const account = await deps.accounts.get(userId);
      if (!account) throw new AppError('not_found', 'No such account.');
      const orgId = organizationId ?? account.personal_org_id;
      const membership = await deps.organizations.get(orgId, userId);
      if (!membership) throw new AppError('not_found', 'No organization with this id among yours.');
      const scopes = view.scopes.filter((s) => ROLE_SCOPES[membership.role].has(s));
      if (scopes.length === 0) throw new AppError('conflict', `Your role in this organization (${membership.role}) allows none of the scopes this app asks for.`);

      const grant = new engine.Grant({ accountId: userId, clientId: view.client.id });
      grant.addResourceScope(view.resource, scopes.join(' '));
      // What was asked and not granted (not registered for the app, or beyond the person's role)
      // is recorded as refused, so the engine issues the narrower grant instead of asking again.
      const refused = view.asked.filter((s) => !scopes.includes(s));
      if (refused.length) grant.rejectResourceScope(view.resource, refused.join(' '));
      // OpenID scopes asked for are granted (sign-in with this platform), so the engine does not ask again.
      const openIdScopes = view.askedOpenId;
      if (openIdScopes.length) grant.addOIDCScope(openIdScopes.join(' '));
      const grantId = await grant.save();
      // The grant and its event together: the organization's webhooks learn of every app let in.
      const recorded = await db.transaction().execute(async (trx) => {
        await trx.insertInto('oauth_grants').values({
          grant_id: grantId, user_id: userId, org_id: orgId, client_id: view.client.id, scopes: scopes.join(' '), resource: view.resource, created_at: isoTime(deps.clock.now()), last_used_at: null, revoked_at: null,
        }).execute();
        return recordEvent(trx, deps.clock, {
          orgId, type: 'oauth.grant.created',
          data: { id: grantId, user_id: userId, client_id: view.client.id, client_name: view.client.name, scopes, resource: view.resource },
        });
      });
      deps.onEvent(recorded);
      await deps.securityLog.record(userId, 'app_connected', client, { client_id: view.client.id, client_name: view.client.name, organization_id: orgId, scopes });
      return answer(req, res, engine, details, { login: { accountId: userId }, consent: { grantId } });
    },

    async deny(req: Request, res: Response): Promise<string> {
      const { engine, details } = await interaction(req, res);
      return answer(req, res, engine, details, { error: 'access_denied', error_description: 'The person did not allow this app.' });
    },
  };
}

export type OauthConsent = ReturnType<typeof createOauthConsent>;
