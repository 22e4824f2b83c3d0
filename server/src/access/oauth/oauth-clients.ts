import type { Kysely } from 'kysely';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Database } from '../../kernel/db/schema.js';
import { secretSealer } from '../../kernel/sealed-secrets.js';
import { isClientIdUrl, type ClientMetadataDocuments } from './client-metadata-documents.js';

/** A confidential app's secret at rest: the engine compares it in plain, so it is sealed, not hashed. */
export const clientSecrets = secretSealer({ kind: 'OAuth client secret', purpose: 'oauth-client-secrets v1', plainMarker: 'plain:' });

/**
 * The engine's `Client` model over `oauth_clients`: the registered apps, read as the metadata
 * oidc-provider validates (redirect URIs, grant types, how the app authenticates). Which scopes
 * an app may ask for is Gatehouse's (`scopes`), checked at consent.
 */
export function oauthClientsAdapter(db: Kysely<Database>, secret: string | undefined, documents: { load: ClientMetadataDocuments['load']; allowPrivate: boolean } | undefined) {
  return class OauthClients implements Adapter {
    constructor(readonly model: string) {}

    async find(id: string): Promise<AdapterPayload | undefined> {
      // A client_id that is the URL of its metadata document (while apps may register themselves).
      const row = documents && isClientIdUrl(id, documents.allowPrivate)
        ? await documents.load(id)
        : await db.selectFrom('oauth_clients').selectAll().where('client_id', '=', id).executeTakeFirst();
      if (!row) return undefined;
      const { fetched_at: _fetched, fresh_until: _fresh, ...metadata } = JSON.parse(row.metadata) as AdapterPayload;
      return {
        ...metadata,
        client_id: row.client_id,
        client_name: row.name,
        ...(row.secret_sealed !== null ? { client_secret: clientSecrets.open(row.secret_sealed, secret) } : {}),
      };
    }

    // Registered through Gatehouse's own routes (oauth-apps), not through the engine.
    async upsert(): Promise<void> {
      throw new Error('OAuth clients are registered through Gatehouse, not the engine');
    }

    async destroy(id: string): Promise<void> {
      await db.deleteFrom('oauth_clients').where('client_id', '=', id).execute();
    }

    async findByUserCode(): Promise<undefined> { return undefined; }
    async findByUid(): Promise<undefined> { return undefined; }
    async consume(): Promise<void> {}
    async revokeByGrantId(): Promise<void> {}
  };
}
