import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../kernel/clock.js';
import { isoTime } from '../../kernel/clock.js';
import type { Database } from '../../kernel/db/schema.js';
import { isUserScope, USER_SCOPES } from '../../kernel/access-terms/scopes.js';
import { AppError } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { clientSecrets } from './oauth-clients.js';
import type { OauthGrants } from './oauth-grants.js';
import { checkRedirectUri } from './redirect-uris.js';

export type OauthAppType = 'public' | 'confidential';

export interface OauthAppView {
  id: string;
  name: string;
  type: OauthAppType;
  redirect_uris: string[];
  scopes: string[];
  created_at: string;
}

const DEVICE_CODE = 'urn:ietf:params:oauth:grant-type:device_code';
/** What an app registered in the dashboard may use: every flow Gatehouse serves. */
const ALL_GRANT_TYPES = ['authorization_code', 'refresh_token', DEVICE_CODE] as const;
/** What a dynamically registered app gets when it names none (RFC 7591's default is the code grant alone; refresh is what MCP clients expect). */
const DEFAULT_REGISTERED_GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;
export const REGISTRABLE_GRANT_TYPES = ALL_GRANT_TYPES;

/**
 * An organization's OAuth apps (Settings → OAuth apps): registered by its admins, each with the
 * redirect URIs it may send people back to and the scopes it may ask for. A confidential app
 * gets a secret, shown once (rotating shows a new one and ends the old at once). Removing an app
 * ends every grant made to it.
 */
export function createOauthApps(deps: { db: Kysely<Database>; clock: Clock; secret: string | undefined; grants: OauthGrants }) {
  const { db } = deps;

  const view = (row: { client_id: string; name: string; metadata: string; scopes: string; created_at: string; secret_sealed: string | null }): OauthAppView => ({
    id: row.client_id,
    name: row.name,
    type: row.secret_sealed === null ? 'public' : 'confidential',
    redirect_uris: (JSON.parse(row.metadata) as { redirect_uris: string[] }).redirect_uris,
    scopes: row.scopes.split(' ').filter(Boolean),
    created_at: row.created_at,
  });

  const newSecret = () => `gho_${randomBytes(32).toString('base64url')}`;

  async function insert(input: {
    orgId: string | null; userId: string | null; name: string; type: OauthAppType; authMethod?: string; redirect_uris: string[]; scopes: string[]; grantTypes: readonly string[];
  }) {
    const native = input.redirect_uris.map(checkRedirectUri).some((u) => u.native);
    const confidential = input.type === 'confidential';
    const secret = confidential ? newSecret() : undefined;
    const metadata = {
      redirect_uris: [...new Set(input.redirect_uris)],
      grant_types: [...input.grantTypes],
      response_types: ['code'],
      token_endpoint_auth_method: input.authMethod ?? (confidential ? 'client_secret_basic' : 'none'),
      application_type: native ? 'native' : 'web',
    };
    const row = {
      client_id: newId('oauthApp'), org_id: input.orgId, name: input.name, metadata: JSON.stringify(metadata),
      secret_sealed: secret === undefined ? null : clientSecrets.seal(secret, deps.secret),
      scopes: [...new Set(input.scopes)].join(' '), created_by: input.userId, created_at: isoTime(deps.clock.now()),
    };
    await db.insertInto('oauth_clients').values(row).execute();
    return { ...view(row), grant_types: metadata.grant_types, ...(secret === undefined ? {} : { client_secret: secret }) };
  }

  async function find(orgId: string, appId: string) {
    const row = await db.selectFrom('oauth_clients').selectAll().where('client_id', '=', appId).where('org_id', '=', orgId).executeTakeFirst();
    if (!row) throw new AppError('not_found', 'No OAuth app with this id in this organization.');
    return row;
  }

  return {
    async create(orgId: string, userId: string, input: { name: string; type: OauthAppType; redirect_uris: string[]; scopes: string[] }): Promise<OauthAppView & { client_secret?: string }> {
      const unknown = input.scopes.filter((s) => !isUserScope(s));
      if (unknown.length) throw new AppError('validation_failed', `Unknown scope: ${unknown.join(', ')}.`);
      const { grant_types: _grantTypes, ...created } = await insert({ orgId, userId, ...input, grantTypes: ALL_GRANT_TYPES });
      return created;
    },

    /**
     * Dynamic registration (RFC 7591, OAUTH_DYNAMIC_CLIENT_REGISTRATION): an app of no
     * organization, which may ask for the platform scopes it names (all when it names none);
     * the consent page tells the person it is nobody's.
     */
    async register(input: { name: string; authMethod: 'none' | 'client_secret_basic' | 'client_secret_post'; redirect_uris: string[]; scope: string | undefined; grant_types: string[] | undefined }) {
      const asked = (input.scope ?? '').split(' ').filter(isUserScope);
      const scopes = asked.length > 0 ? asked : [...USER_SCOPES];
      const grantTypes = input.grant_types ?? DEFAULT_REGISTERED_GRANT_TYPES;
      return insert({
        orgId: null, userId: null, name: input.name, type: input.authMethod === 'none' ? 'public' : 'confidential', authMethod: input.authMethod,
        redirect_uris: input.redirect_uris, scopes, grantTypes,
      });
    },

    async list(orgId: string): Promise<OauthAppView[]> {
      const rows = await db.selectFrom('oauth_clients').selectAll().where('org_id', '=', orgId).orderBy('created_at', 'desc').orderBy('client_id', 'desc').execute();
      return rows.map(view);
    },

    async remove(orgId: string, appId: string): Promise<void> {
      await find(orgId, appId);
      await db.deleteFrom('oauth_clients').where('client_id', '=', appId).execute();
      await deps.grants.revokeAllOfClient(appId);
    },

    async rotateSecret(orgId: string, appId: string): Promise<OauthAppView & { client_secret: string }> {
      const row = await find(orgId, appId);
      if (row.secret_sealed === null) throw new AppError('conflict', 'A public app has no secret to rotate.');
      const secret = newSecret();
      await db.updateTable('oauth_clients').set({ secret_sealed: clientSecrets.seal(secret, deps.secret) }).where('client_id', '=', appId).execute();
      return { ...view(row), client_secret: secret };
    },
  };
}

export type OauthApps = ReturnType<typeof createOauthApps>;
