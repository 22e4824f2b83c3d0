import type { FastifyInstance } from 'fastify';

export const FORM = 'application/x-www-form-urlencoded';

/**
 * Accept `application/x-www-form-urlencoded` bodies in this plugin's scope only (OAuth 2-style
 * token requests; providers answering by form post). A repeated name keeps its last value.
 */
export function acceptFormBodies(app: FastifyInstance): void {
  app.addContentTypeParser(FORM, { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
}
