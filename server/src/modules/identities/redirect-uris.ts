/** Schemes that run code or read files instead of opening an app or a page. */
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:']);
const REDIRECT_URI_MAX = 2048;

/**
 * Where a finished provider sign-in may send its one-time code: a page of this server
 * (PUBLIC_URL's origin: the dashboard), an origin in CORS_ORIGINS (a web app), or a URL under
 * APP_LINK_URL (a mobile app's scheme or universal link). Anything else would be an open
 * redirect that hands codes to a stranger (PKCE still guards them, but no code should leave).
 */
export function redirectUriChecker(config: { publicUrl: string; corsOrigins: string[]; appLinkUrl?: string | undefined }): (uri: string) => boolean {
  const origins = new Set([new URL(config.publicUrl).origin, ...config.corsOrigins.filter((o) => o !== '*')]);
  const appLink = config.appLinkUrl;
  return (uri) => {
    if (uri.length > REDIRECT_URI_MAX) return false;
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      return false;
    }
    if (FORBIDDEN_SCHEMES.has(url.protocol) || url.hash || url.username || url.password) return false;
    if ((url.protocol === 'https:' || url.protocol === 'http:') && origins.has(url.origin)) return true;
    // Under APP_LINK_URL: the same URL, or a path below it (never a sibling such as /auth-evil).
    return appLink !== undefined && (uri === appLink || uri.startsWith(`${appLink}/`) || uri.startsWith(`${appLink}?`));
  };
}
