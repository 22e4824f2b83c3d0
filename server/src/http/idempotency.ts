import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Kysely } from 'kysely';
import type { Clock } from '../kernel/clock.js';
import { isoTime } from '../kernel/clock.js';
import { isUniqueViolation } from '../kernel/db/errors.js';
import type { Database } from '../kernel/db/schema.js';
import { AppError } from '../kernel/errors.js';
import { matchesFingerprint, requestFingerprint } from './request-fingerprint.js';
import { addResponses } from './route-hooks.js';
import { problemResponses } from './schemas.js';
import { requireOrganization } from './caller.js';

export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/; // visible ASCII, like Stripe's

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A creating POST: honours Idempotency-Key. */
    idempotent?: boolean;
    /**
     * A top-level response field holding a secret shown once (an API key, a webhook secret).
     * It is blanked (null) in the stored replay: one-time secrets are never kept in plain text.
     */
    oneTimeSecretField?: string;
  }
  interface FastifyRequest {
    idempotency: { orgId: string; key: string } | null;
  }
}

/**
 * Idempotency-Key on creating POSTs, scoped per organization (members share one namespace, like one account), kept 24 h. The key is claimed (row
 * with no response) before the handler runs, so two concurrent requests with one key cannot both
 * create: the second gets 409 conflict. The first's response is stored on send and replayed to
 * every later request with the same key and the same request (request-fingerprint.ts: the parsed
 * body compared canonically, so key order and whitespace do not count); another body gets 422. A 5xx releases the key
 * so the client can retry. Requests refused before the handler (auth, validation) store nothing.
 * A replay of a creation that returned a one-time secret returns the resource with that field
 * null: whoever lost the first answer revokes the resource and creates another.
 */
export function registerIdempotency(app: FastifyInstance, deps: { db: Kysely<Database>; clock: Clock }): void {
  const { db, clock } = deps;
  app.decorateRequest('idempotency', null);

  async function claim(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const header = request.headers['idempotency-key'];
    if (header === undefined || !request.auth) return undefined;
    if (typeof header !== 'string' || !KEY_SHAPE.test(header)) {
      throw new AppError('validation_failed', 'Idempotency-Key must be 1–255 visible ASCII characters.', { errors: [{ field: 'header:/idempotency-key', code: 'invalid_format', message: 'Idempotency-Key must be 1–255 visible ASCII characters.' }] });
    }
    const orgId = requireOrganization(request).org.id;
    const hash = requestFingerprint(request);
    const now = clock.now();
    const existing = await db.selectFrom('idempotency_keys').selectAll().where('org_id', '=', orgId).where('key', '=', header).executeTakeFirst();
    if (existing && Date.parse(existing.created_at) + IDEMPOTENCY_TTL_MS > now) {
      if (!matchesFingerprint(existing.request_hash, request, hash)) throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used with a different request.');
      if (existing.status_code === null) throw new AppError('conflict', 'A request with this Idempotency-Key is still in progress; retry shortly.', { headers: { 'Retry-After': '1' } });
      reply.header('Idempotent-Replayed', 'true');
      // A stored error is a problem document and keeps its media type on replay.
      const type = existing.status_code >= 400 ? 'application/problem+json' : 'application/json; charset=utf-8';
      if (existing.response_location !== null) reply.header('Location', existing.response_location);
      return reply.code(existing.status_code).type(type).send(existing.response_body);
    }
    if (existing) await db.deleteFrom('idempotency_keys').where('org_id', '=', orgId).where('key', '=', header).execute();
    try {
      await db.insertInto('idempotency_keys').values({ org_id: orgId, key: header, request_hash: hash, status_code: null, response_body: null, response_location: null, created_at: isoTime(now) }).execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('conflict', 'A request with this Idempotency-Key is still in progress; retry shortly.', { headers: { 'Retry-After': '1' } });
      throw error;
    }
    request.idempotency = { orgId, key: header };
    return undefined;
  }

  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.config?.idempotent) return;
    const hooks = route.preHandler ? [route.preHandler].flat() : [];
    route.preHandler = [claim, ...hooks];
    route.onSend = [...(route.onSend ? [route.onSend].flat() : []), store];
    // What the claim itself can answer, on every idempotent route: 409 for a duplicate still in
    // progress, 422 for a key reused with another request (found by the conformance suite: the
    // document of POST /api-keys lacked the 409 a concurrent duplicate gets).
    addResponses(route, problemResponses([409, 422]));
    const schema = (route.schema ??= {}) as Record<string, unknown>;
    const headers = (schema.headers ?? { type: 'object', properties: {} }) as { properties: Record<string, unknown> };
    headers.properties['idempotency-key'] = { type: 'string', maxLength: 255, description: 'Same key + same body within 24 h replays the first response (Idempotent-Replayed: true)' };
    schema.headers = headers;
  });

  // Attached to idempotent routes only (below), so no other request pays for it.
  async function store(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const claimed = request.idempotency;
    if (!claimed) return payload;
    request.idempotency = null;
    const where = db.updateTable('idempotency_keys').where('org_id', '=', claimed.orgId).where('key', '=', claimed.key);
    if (reply.statusCode >= 500) {
      await db.deleteFrom('idempotency_keys').where('org_id', '=', claimed.orgId).where('key', '=', claimed.key).execute();
    } else {
      let body = typeof payload === 'string' ? payload : JSON.stringify(payload);
      const secretField = request.routeOptions.config.oneTimeSecretField;
      if (secretField && reply.statusCode < 300) {
        const parsed = JSON.parse(body) as Record<string, unknown>;
        if (secretField in parsed) parsed[secretField] = null;
        body = JSON.stringify(parsed);
      }
      const location = reply.getHeader('location');
      await where.set({ status_code: reply.statusCode, response_body: body, response_location: typeof location === 'string' ? location : null }).execute();
    }
    return payload;
  }

  const sweep = setInterval(() => {
    void db.deleteFrom('idempotency_keys').where('created_at', '<', isoTime(clock.now() - IDEMPOTENCY_TTL_MS)).execute().catch(() => {});
  }, 3600_000);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));
}
