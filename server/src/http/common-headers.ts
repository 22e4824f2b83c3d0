import type { FastifyInstance } from 'fastify';

/**
 * The headers every answer carries, appended to `out` as name, value, … (the flat form
 * `res.writeHead` takes): its request id and `nosniff`; on `/v1` also `no-store`, since API answers
 * carry credentials and personal data and must never sit in a shared cache. Names in lower case,
 * as Fastify stores them.
 */
export function appendCommonHeaders(out: string[], requestId: string, url: string): void {
  out.push('x-request-id', requestId, 'x-content-type-options', 'nosniff');
  if (url.startsWith('/v1/')) out.push('cache-control', 'no-store');
}

/** The first onRequest hook: the common headers on every answer Fastify sends, errors included. */
export function registerCommonHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    const headers: string[] = [];
    appendCommonHeaders(headers, request.id, request.url);
    for (let i = 0; i < headers.length; i += 2) reply.header(headers[i]!, headers[i + 1]);
    done();
  });
}
