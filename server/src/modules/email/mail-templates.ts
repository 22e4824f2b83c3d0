import type { MailMessage } from '../../infra/mail/mailer.js';

/**
 * The service's mails, plain text and HTML. Links point at PUBLIC_URL pages (the dashboard), or
 * at the app (APP_LINK_URL) with the web page as a fallback when the app's link is a scheme of
 * its own; the token travels in the fragment-free query string, single-use and short-lived.
 * Names are escaped: they are user input.
 */
export interface MailLink {
  href: string;
  /** The web page for the same step, for mail clients that do not open the app's scheme. */
  fallback?: string;
}
function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function layout(title: string, paragraphs: string[], link?: MailLink & { label: string }): string {
  const body = paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('');
  const fallback = link?.fallback ? `<p>If the app does not open: <a href="${escapeHtml(link.fallback)}">${escapeHtml(link.fallback)}</a></p>` : '';
  const button = link ? `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p>${fallback}` : '';
  return `<!doctype html><html><body style="font-family:sans-serif"><h1>${escapeHtml(title)}</h1>${body}${button}</body></html>`;
}

/** The link in the plain-text part: the app's, then the web page's when there is one. */
const textLink = (link: MailLink) => (link.fallback ? `${link.href}\n\nIf the app does not open: ${link.fallback}` : link.href);

export function verificationMail(to: string, name: string, link: MailLink): MailMessage {
  const lines = [`Hello ${name},`, 'Confirm this email address for your Gatehouse account. The link works once, for 24 hours.'];
  return {
    to,
    subject: 'Confirm your email address',
    text: `${lines.join('\n\n')}\n\n${textLink(link)}\n\nIf you did not create an account, ignore this mail.`,
    html: layout('Confirm your email address', [...lines, 'If you did not create an account, ignore this mail.'], { ...link, label: 'Confirm email address' }),
  };
}

export function resetMail(to: string, name: string, link: MailLink): MailMessage {
  const lines = [`Hello ${name},`, 'Someone asked to reset the password of your Gatehouse account. The link works once, for one hour.'];
  return {
    to,
    subject: 'Reset your password',
    text: `${lines.join('\n\n')}\n\n${textLink(link)}\n\nIf it was not you, ignore this mail: your password stays as it is.`,
    html: layout('Reset your password', [...lines, 'If it was not you, ignore this mail: your password stays as it is.'], { ...link, label: 'Choose a new password' }),
  };
}

export function passwordChangedMail(to: string, name: string, when: string): MailMessage {
  const lines = [`Hello ${name},`, `The password of your Gatehouse account was changed at ${when} and every session was signed out.`, 'If this was not you, reset your password now and contact support.'];
  return { to, subject: 'Your password was changed', text: lines.join('\n\n'), html: layout('Your password was changed', lines) };
}

/** A change to how the account signs in (a second factor, a passkey): the owner hears of it at once. */
export function securityChangeMail(to: string, name: string, change: string, when: string): MailMessage {
  const lines = [`Hello ${name},`, `${change} on your Gatehouse account at ${when}.`, 'If this was not you, reset your password now, review Settings → Security, and contact support.'];
  return { to, subject: 'A change to how you sign in', text: lines.join('\n\n'), html: layout('A change to how you sign in', lines) };
}

/** An invitation to an organization (modules/organizations/): the link works once, for 7 days, for this address only. */
export function invitationMail(to: string, inviter: string, organization: string, role: string, link: MailLink): MailMessage {
  const lines = [`Hello,`, `${inviter} invited you to join ${organization} on Gatehouse as ${role}. Sign in (or create an account) with this address, then open the link. It works once, for 7 days.`];
  return {
    to,
    subject: `You are invited to join ${organization}`,
    text: `${lines.join('\n\n')}\n\n${textLink(link)}\n\nIf you did not expect this, ignore this mail.`,
    html: layout(`You are invited to join ${organization}`, [...lines, 'If you did not expect this, ignore this mail.'], { ...link, label: 'Accept the invitation' }),
  };
}
