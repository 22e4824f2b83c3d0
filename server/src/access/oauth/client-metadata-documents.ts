import type { Kysely, Selectable } from 'kysely';
import { isoTime, type Clock } from '../../kernel/clock.js';
import type { Database, OauthClientsTable } from '../../kernel/db/schema.js';
import { USER_SCOPES } from '../../kernel/access-terms/scopes.js';
import { AppError } from '../../kernel/errors.js';
import { getJson, type FetchedJson } from '../../kernel/outbound/get-json.js';
import { checkRedirectUri } from './redirect-uris.js';

/** The longest client_id URL taken: the length of `oauth_clients.client_id`, where the document is cached. */
export const CLIENT_ID_URL_MAX_LENGTH = 100;
const DOCUMENT_MAX_BYTES = 5_120;
const FETCH_TIMEOUT_MS = 5_000;
/** How long a document is used before it is fetched again: its max-age, within these bounds (default an hour). */
const FRESH_SECONDS = { min: 60, default: 3_600, max: 86_400 };
/** A document whose site stopped answering is used this long after it was last fetched, then refused. */
const STALE_GRACE_SECONDS = 86_400;
const GRANT_TYPES = new Set(['authorization_code', 'refresh_token']);

type ClientRow = Selectable<OauthClientsTable>;

/**
 * Whether a client_id is a Client ID Metadata Document's URL (the MCP 2025-11 profile): https
 * with a path, or plain http where outbound requests may reach private addresses (tests, local
 * development: WEBHOOK_ALLOW_PRIVATE).
 */
export function isClientIdUrl(id: string, allowPrivate: boolean): boolean {
  if (!(id.startsWith('https://') || (allowPrivate && id.startsWith('http://')))) return false;
  try {
    const url = new URL(id);
    return url.pathname !== '/' && !url.hash && !url.username && !url.password && id.length <= CLIENT_ID_URL_MAX_LENGTH;
  } catch {
    return false;
  }
}

/** The document, checked as an app's registration is; throws a sentence naming what is wrong. */
function clientFromDocument(url: string, body: unknown) {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error('is not a JSON object');
  const doc = body as Record<string, unknown>;
  if (doc.client_id !== url) throw new Error('names another client_id than its own URL');
  const redirects = doc.redirect_uris;
  if (!Array.isArray(redirects) || redirects.length === 0 || redirects.length > 10 || !redirects.every((u) => typeof u === 'string' && u.length <= 2000)) {
    throw new Error('needs redirect_uris: 1 to 10 URIs');
  }
  for (const uri of redirects as string[]) {
    try {
      checkRedirectUri(uri);
    } catch (error) {
      throw new Error(error instanceof AppError ? error.message : 'has a redirect URI that is not allowed');
    }
  }
  const method = doc.token_endpoint_auth_method ?? 'none';
  if (method !== 'none') throw new Error('asks for a token endpoint authentication other than none (public clients only)');
  const grantTypes = doc.grant_types ?? ['authorization_code', 'refresh_token'];
  if (!Array.isArray(grantTypes) || !grantTypes.every((g) => typeof g === 'string' && GRANT_TYPES.has(g))) throw new Error('asks for grant types other than authorization_code and refresh_token');
  const name = typeof doc.client_name === 'string' && doc.client_name.trim() ? doc.client_name.trim().slice(0, 100) : new URL(url).host;
  return { name, redirect_uris: [...new Set(redirects as string[])], grant_types: grantTypes as string[] };
}

/**
 * Client ID Metadata Documents: an app whose client_id is the https URL of a JSON document that
 * describes it (name, redirect URIs), so it needs no registration at all. The document is fetched
 * through the outbound guard (public addresses only, no redirects, 5 s, 5 KiB), checked like an
 * app's registration, and cached in `oauth_clients` (no organization; every platform scope, which
 * the consent step narrows) for its max-age; a site that stops answering keeps its last document
 * for a day. On while OAUTH_DYNAMIC_CLIENT_REGISTRATION is: both let an app of no organization ask.
 */
export function createClientMetadataDocuments(deps: {
  db: Kysely<Database>; clock: Clock; allowPrivate: boolean;
  /** Why a document was refused (the engine answers the app only invalid_client). */
  warn: (detail: Record<string, unknown>, message: string) => void;
  /** The outbound GET (tests count the fetches). */
  fetchJson?: (url: string) => Promise<FetchedJson>;
}) {
  const { db, clock } = deps;
  const fetchJson = deps.fetchJson ?? ((url: string) => getJson(url, { allowPrivate: deps.allowPrivate, timeoutMs: FETCH_TIMEOUT_MS, maxBytes: DOCUMENT_MAX_BYTES }));
  const nowSeconds = () => Math.floor(clock.now() / 1000);

  async function refresh(url: string): Promise<ClientRow> {
    const fetched = await fetchJson(url);
    const client = clientFromDocument(url, fetched.body);
    const fresh = Math.min(FRESH_SECONDS.max, Math.max(FRESH_SECONDS.min, fetched.maxAgeSeconds ?? FRESH_SECONDS.default));
    const native = client.redirect_uris.map(checkRedirectUri).some((u) => u.native);
    const metadata = JSON.stringify({
      redirect_uris: client.redirect_uris, grant_types: client.grant_types, response_types: ['code'], token_endpoint_auth_method: 'none',
      application_type: native ? 'native' : 'web', fetched_at: nowSeconds(), fresh_until: nowSeconds() + fresh,
    });
    const row: ClientRow = {
      client_id: url, org_id: null, name: client.name, metadata, secret_sealed: null, scopes: USER_SCOPES.join(' '), created_by: null, created_at: isoTime(clock.now()),
    };
    await db.insertInto('oauth_clients').values(row)
      .onConflict((conflict) => conflict.column('client_id').doUpdateSet({ name: row.name, metadata: row.metadata, scopes: row.scopes })).execute();
    return row;
  }

  return {
    /** The app behind a client_id URL: cached while fresh, else fetched again; undefined when there is no usable document. */
    async load(url: string): Promise<ClientRow | undefined> {
      const cached = await db.selectFrom('oauth_clients').selectAll().where('client_id', '=', url).executeTakeFirst();
      const times = cached ? (JSON.parse(cached.metadata) as { fetched_at?: number; fresh_until?: number }) : undefined;
      if (cached && (times?.fresh_until ?? 0) > nowSeconds()) return cached;
      try {
        return await refresh(url);
      } catch (error) {
        if (cached && (times?.fetched_at ?? 0) + STALE_GRACE_SECONDS > nowSeconds()) return cached;
        deps.warn({ client_id: url, reason: (error as Error).message }, 'client metadata document refused');
        return undefined;
      }
    },
  };
}

export type ClientMetadataDocuments = ReturnType<typeof createClientMetadataDocuments>;
