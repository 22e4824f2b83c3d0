import type { MailLink } from './mail-templates.js';

/**
 * The one rule for a link a mail carries to a page with a single-use token: to the app
 * (APP_LINK_URL) when it is an https universal link, else to the dashboard's page under
 * PUBLIC_URL. An app's own scheme (myapp://) is not clickable in every mail client, so it goes
 * beside the https link, never in its place.
 */
export function mailLinks(urls: { publicUrl: string; appLinkUrl?: string | undefined }) {
  const pageLink = (base: string, page: string, token: string) => `${base}/${page}?token=${encodeURIComponent(token)}`;
  return (page: string, token: string): MailLink => {
    const web = pageLink(urls.publicUrl, page, token);
    if (!urls.appLinkUrl) return { href: web };
    const app = pageLink(urls.appLinkUrl, page, token);
    return /^https?:/.test(app) ? { href: app } : { href: web, app };
  };
}

export type MailLinkTo = ReturnType<typeof mailLinks>;
