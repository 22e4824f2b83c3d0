const REDIRECT_URI_MAX = 2048;
/** The dashboard's own page for a provider's answer (dashboard/src/lib/provider-sign-in.ts). */
export const DASHBOARD_CALLBACK_PATH = '/oidc-callback';

/**
 * Where a finished provider sign-in may send its one-time code: the dashboard's callback page,
 * a web app's page listed in OIDC_REDIRECT_URIS (exactly), or a URL under APP_LINK_URL (an app's
 * scheme or universal link). Compared in the URL's normal form, so dot segments, backslashes or
 * encoded dots cannot walk out of APP_LINK_URL. A code sent anywhere else could be read there by
 * whoever started the sign-in (PKCE protects only a sign-in the app itself started).
 */
export function redirectUriChecker(config: { publicUrl: string; oidcRedirectUris: string[]; appLinkUrl?: string | undefined }): (uri: string) => boolean {
  const exact = new Set([`${config.publicUrl}${DASHBOARD_CALLBACK_PATH}`, ...config.oidcRedirectUris]);
  const appLink = config.appLinkUrl;
  return (uri) => {
    if (uri.length > REDIRECT_URI_MAX) return false;
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      return false;
    }
    // Only a URL already in normal form: what is checked is what the browser will open. The exact
    // ones and APP_LINK_URL were checked by config.ts (schemes, credentials, fragments).
    if (url.href !== uri || url.hash) return false;
    if (exact.has(uri)) return true;
    // Under APP_LINK_URL: the same URL, or a path below it (never a sibling such as /auth-evil).
    return appLink !== undefined && (uri === appLink || uri.startsWith(`${appLink}/`) || uri.startsWith(`${appLink}?`));
  };
}
