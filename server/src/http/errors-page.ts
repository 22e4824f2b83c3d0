import type { FastifyInstance } from 'fastify';
import { ERROR_CATALOGUE } from '../kernel/errors.js';
import { setPageHeaders, STATIC_PAGE_CSP } from './page-headers.js';

/** `/docs/errors`: the target of every problem's `type` URI, one anchor per code. */
export function registerErrorsPage(app: FastifyInstance): void {
  const rows = Object.entries(ERROR_CATALOGUE)
    .map(([code, { status, title }]) => `<tr id="${code}"><td><code>${code}</code></td><td>${status}</td><td>${title}</td></tr>`)
    .join('\n');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Gatehouse errors</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head><body>
<h1>Error codes</h1><p>Every error is <code>application/problem+json</code> (RFC 9457). Match on <code>code</code>; it never changes.</p>
<table><thead><tr><th>code</th><th>status</th><th>title</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>`;
  app.get('/docs/errors', { schema: { hide: true } }, async (_request, reply) => {
    setPageHeaders(reply, STATIC_PAGE_CSP);
    return reply.type('text/html; charset=utf-8').send(html);
  });
}
