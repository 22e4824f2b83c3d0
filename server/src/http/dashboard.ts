import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { escapeHtml } from '../kernel/html.js';
import { setPageHeaders } from './page-headers.js';

/**
 * The built dashboard. In a checkout (the package's sources are there), where `npm run build -w
 * dashboard` writes it (Vite's outDir); in the installed package (no sources), `dashboard-dist/`
 * beside `dist/`, which scripts/pack-dashboard.mjs packed there. Decided by the sources, not by
 * which folder exists: a checkout being packed holds both for a moment.
 */
const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));
export const DASHBOARD_DIST = existsSync(join(PACKAGE_DIR, 'src'))
  ? fileURLToPath(new URL('../../../dashboard/dist', import.meta.url))
  : join(PACKAGE_DIR, 'dashboard-dist');

/**
 * The dashboard's client routes (dashboard/src/routes.ts): each answers index.html and the
 * browser-side router draws the page. Listed one by one rather than a catch-all, so /v1, /docs,
 * /healthz and every unknown path keep their own answers (a problem+json 404 included).
 */
export const DASHBOARD_ROUTES = [
  '/', '/login', '/signup', '/forgot-password', '/reset-password', '/verify-email', '/sign-in', '/oidc-callback', '/accept-invitation', '/oauth/consent',
  '/agents', '/chats', '/chats/*', '/webhooks', '/webhooks/*', '/admin', '/admin/*', '/settings', '/settings/*',
] as const;

/** No inline script or style, nothing from another origin, no framing. */
export const DASHBOARD_CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
  "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'",
].join('; ');

/** Served at the client routes when dashboard/dist is missing, so the API still starts. */
const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gatehouse: dashboard not built</title></head>
<body><main><h1>The dashboard has not been built</h1>
<p>Build it with <code>npm run build -w dashboard</code> (or run <code>npm start</code>, which builds it when missing) and restart the server.</p>
<p>The API is up: see <a href="/docs">/docs</a>.</p></main></body></html>
`;

export interface DashboardOptions {
  /** The built dashboard; defaults to dashboard/dist in this repository. */
  distDir?: string;
  /** PRODUCT_NAME: the page's title and the name the dashboard shows (read from its meta tag). */
  productName?: string;
}

/**
 * The build's index.html with the product's name in its title and in `<meta name="application-name">`
 * (which the dashboard reads), written once to a folder of this process's own, so it is served as a
 * static file like the rest (ETag, conditional and range requests). One build serves any product.
 */
function productIndex(distDir: string, product: string): string {
  const name = escapeHtml(product);
  const html = readFileSync(join(distDir, 'index.html'), 'utf8').replace(/<title>[^<]*<\/title>/, `<title>${name}</title>\n    <meta name="application-name" content="${name}">`);
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-dashboard-'));
  writeFileSync(join(dir, 'index.html'), html);
  return dir;
}

/**
 * Serves the built dashboard at `/`: hashed assets under /assets/ (cached for a year) and
 * index.html (revalidated every time) at each client route, all with a strict CSP. Hidden from
 * the OpenAPI document. Whether the build exists, and which assets it has, is read once at start:
 * restart after a rebuild (`npm run dev -w dashboard` serves a live one while developing).
 */
export async function registerDashboard(app: FastifyInstance, options: DashboardOptions = {}): Promise<void> {
  const distDir = options.distDir ?? DASHBOARD_DIST;
  const built = existsSync(join(distDir, 'index.html'));
  const indexDir = built ? productIndex(distDir, options.productName ?? 'Gatehouse') : undefined;
  if (indexDir) app.addHook('onClose', async () => rmSync(indexDir, { recursive: true, force: true }));

  await app.register(async (dashboard) => {
    dashboard.addHook('onRequest', async (_request, reply) => setPageHeaders(reply, DASHBOARD_CSP));

    if (built) {
      await dashboard.register(fastifyStatic, {
        root: join(distDir, 'assets'),
        prefix: '/assets/',
        schemaHide: true,
        // One route per file found at start: an unknown /assets/ path is an ordinary 404 problem.
        wildcard: false,
        index: false,
        redirect: false,
        dotfiles: 'deny',
        // File names carry a content hash: a new build is a new name.
        maxAge: '365d',
        immutable: true,
      });
    }

    const sendIndex = (reply: FastifyReply) =>
      built
        ? reply.header('Cache-Control', 'no-cache').sendFile('index.html', indexDir!, { maxAge: 0, cacheControl: false })
        : reply.code(503).header('Cache-Control', 'no-store').type('text/html; charset=utf-8').send(NOT_BUILT_PAGE);
    for (const url of DASHBOARD_ROUTES) {
      dashboard.get(url, { schema: { hide: true } }, async (_request, reply) => sendIndex(reply));
    }
    if (built && existsSync(join(distDir, 'favicon.svg'))) {
      dashboard.get('/favicon.svg', { schema: { hide: true } }, async (_request, reply) =>
        reply.header('Cache-Control', 'public, max-age=86400').sendFile('favicon.svg', distDir, { cacheControl: false }),
      );
    }
  });
}
