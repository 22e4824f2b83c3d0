import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { AppError } from '../../kernel/errors.js';

export interface AppLinksConfig {
  publicUrl: string;
  appLinkUrl?: string | undefined;
  appleAppIds: string[];
  androidApp?: { package: string; certSha256: string[] } | undefined;
}

/** The mailed pages an app opens as universal / app links. */
const LINK_PAGES = ['verify-email', 'reset-password', 'accept-invitation', 'sign-in'];

/**
 * The paths of this host an app may open: under APP_LINK_URL when it is an https URL of this
 * kind (its path is the prefix), else the dashboard's own pages under PUBLIC_URL.
 */
function linkPaths(config: AppLinksConfig): string[] {
  const base = config.appLinkUrl && /^https:/.test(config.appLinkUrl) ? config.appLinkUrl : config.publicUrl;
  const prefix = new URL(base).pathname.replace(/\/+$/, '');
  return LINK_PAGES.map((page) => `${prefix}/${page}`);
}

/** Apple's current format: applinks with appIDs and URL components, and webcredentials for password autofill. */
export function appleAppSiteAssociation(config: AppLinksConfig) {
  return {
    applinks: {
      details: [{ appIDs: config.appleAppIds, components: linkPaths(config).map((path) => ({ '/': path, comment: 'a mailed Gatehouse link' })) }],
    },
    webcredentials: { apps: config.appleAppIds },
  };
}

/** Google's Digital Asset Links statement: the app may handle this site's links. */
export function assetLinks(androidApp: NonNullable<AppLinksConfig['androidApp']>) {
  return [{
    relation: ['delegate_permission/common.handle_all_urls'],
    target: { namespace: 'android_app', package_name: androidApp.package, sha256_cert_fingerprints: androidApp.certSha256 },
  }];
}

/**
 * `/.well-known/apple-app-site-association` (APPLE_APP_IDS) and `/.well-known/assetlinks.json`
 * (ANDROID_APP_PACKAGE, ANDROID_CERT_SHA256): served as application/json without a redirect, as
 * both platforms require; 404 while unset. Not part of the API document.
 */
export function appLinksRoutes(config: AppLinksConfig): FastifyPluginAsync {
  return async (app) => {
    const serve = (body: unknown, what: string) => async (_request: unknown, reply: FastifyReply) => {
      if (body === undefined) throw new AppError('not_found', `This server has no ${what} configured.`);
      reply.header('Cache-Control', 'public, max-age=3600');
      reply.type('application/json');
      return JSON.stringify(body);
    };
    const apple = config.appleAppIds.length > 0 ? appleAppSiteAssociation(config) : undefined;
    const android = config.androidApp ? assetLinks(config.androidApp) : undefined;
    app.get('/.well-known/apple-app-site-association', { schema: { hide: true } }, serve(apple, 'iOS app (APPLE_APP_IDS)'));
    app.get('/.well-known/assetlinks.json', { schema: { hide: true } }, serve(android, 'Android app (ANDROID_APP_PACKAGE)'));
  };
}
