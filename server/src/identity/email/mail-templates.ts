import { escapeHtml } from '../../kernel/html.js';
import type { MailMessage } from '../../kernel/mail/mailer.js';

/**
 * The service's mails, plain text and HTML, in the product's name (PRODUCT_NAME); any part of any
 * mail can be replaced from MAIL_TEMPLATES_DIR (mail-template-files.ts). Links point at PUBLIC_URL
 * pages (the dashboard), or at the app (APP_LINK_URL): an https link first (every mail client
 * opens it), and an app's own scheme beside it. The token travels in the query string,
 * single-use and short-lived. Names are escaped in HTML: they are user input.
 */
export interface MailLink {
  /** The link every mail client opens: https (the app's universal link, or the web page). */
  href: string;
  /** The app's own-scheme link (myapp://…) for the same step, when APP_LINK_URL is one. */
  app?: string;
}

/** Every mail, by the name its override files take (`<name>.subject.txt`, `<name>.txt`, `<name>.html`), with the variables its templates may use. */
export const MAIL_VARIABLES = {
  'verification': ['product', 'name', 'link', 'app_link'],
  'sign-in-code': ['product', 'code', 'link', 'app_link'],
  'reset-password': ['product', 'name', 'link', 'app_link'],
  'password-changed': ['product', 'name', 'when'],
  'security-change': ['product', 'name', 'change', 'when'],
  'email-change': ['product', 'name', 'link', 'app_link'],
  'email-changed': ['product', 'name', 'new_email', 'when'],
  'deletion-scheduled': ['product', 'name', 'due'],
  'account-restored': ['product', 'name', 'when'],
  'deletion-called-off': ['product', 'name', 'organization'],
  'invitation': ['product', 'inviter', 'organization', 'role', 'link', 'app_link'],
} as const satisfies Record<string, readonly string[]>;
export type MailName = keyof typeof MAIL_VARIABLES;

/** The parts of one mail that MAIL_TEMPLATES_DIR replaces (mail-template-files.ts); a part left out stays the built-in one. */
export interface MailOverride {
  subject?: string;
  text?: string;
  html?: string;
}
export type MailOverrides = Map<MailName, MailOverride>;
type Variables<N extends MailName> = Record<(typeof MAIL_VARIABLES)[N][number], string>;

function layout(title: string, paragraphs: string[], link?: MailLink & { label: string }): string {
  const body = paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('');
  const app = link?.app ? `<p>Open in the app: <a href="${escapeHtml(link.app)}">${escapeHtml(link.app)}</a></p>` : '';
  const button = link ? `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p><p>${escapeHtml(link.href)}</p>${app}` : '';
  return `<!doctype html><html><body style="font-family:sans-serif"><h1>${escapeHtml(title)}</h1>${body}${button}</body></html>`;
}

/** The link in the plain-text part: the https one, then the app's own when there is one. */
const textLink = (link: MailLink) => (link.app ? `${link.href}\n\nOpen in the app: ${link.app}` : link.href);
const linkVariables = (link: MailLink) => ({ link: link.href, app_link: link.app ?? '' });

/**
 * A placeholder in a template: `{{ variable }}`. Whatever stands between the braces must be one of
 * the mail's variables: mail-template-files.ts refuses anything else at start, so a typo stops the
 * start instead of going out as an empty gap.
 */
export const PLACEHOLDER = /\{\{([\s\S]*?)\}\}/g;
function fill(template: string, variables: Record<string, string>, escape: (value: string) => string): string {
  return template.replace(PLACEHOLDER, (_whole, name: string) => escape(variables[name.trim()] ?? ''));
}
/**
 * A subject is one header line, whoever wrote it: a line break (or any control character) in a
 * name, an organization or a template's file must not start another header (`Bcc: …`).
 */
const oneLine = (subject: string) => subject.replace(/\p{Cc}+/gu, ' ').trim();
const asIs = (value: string) => value;

/**
 * Every mail, in the product's name (PRODUCT_NAME): what its users know the service as. Each
 * function builds the built-in mail; `overrides` (MAIL_TEMPLATES_DIR) replaces the parts given,
 * with the same variables: as they are in the subject and the text, HTML-escaped in the HTML.
 */
export function mailTemplates(product: string, overrides: MailOverrides = new Map()) {
  function finish<N extends MailName>(name: N, to: string, variables: Omit<Variables<N>, 'product'>, builtIn: Omit<MailMessage, 'to'>): MailMessage {
    const own: MailOverride = overrides.get(name) ?? {};
    const values: Record<string, string> = { ...variables, product };
    const part = (template: string | undefined, made: string, escape: (value: string) => string) => (template === undefined ? made : fill(template, values, escape));
    return {
      to,
      subject: oneLine(part(own.subject, builtIn.subject, asIs)),
      text: part(own.text, builtIn.text, asIs),
      html: part(own.html, builtIn.html, escapeHtml),
    };
  }

  function verificationMail(to: string, name: string, link: MailLink): MailMessage {
    const lines = [`Hello ${name},`, `Confirm this email address for your ${product} account. The link works once, for 24 hours.`];
    return finish('verification', to, { name, ...linkVariables(link) }, {
      subject: 'Confirm your email address',
      text: `${lines.join('\n\n')}\n\n${textLink(link)}\n\nIf you did not create an account, ignore this mail.`,
      html: layout('Confirm your email address', [...lines, 'If you did not create an account, ignore this mail.'], { ...link, label: 'Confirm email address' }),
    });
  }

  /**
   * A passwordless sign-in (identity/passwordless): the code to type in the app, and the link that
   * does the same on this device. Both work once, for 10 minutes.
   */
  function signInCodeMail(to: string, code: string, link: MailLink): MailMessage {
    const lines = [`Your ${product} sign-in code is ${code}.`, 'Type it where you asked for it, or open the link on this device. The code and the link work once, for 10 minutes.'];
    const ignore = 'If you did not ask to sign in, ignore this mail: nobody can sign in without the code.';
    return finish('sign-in-code', to, { code, ...linkVariables(link) }, {
      subject: `${code} is your ${product} sign-in code`,
      text: `${lines.join('\n\n')}\n\n${textLink(link)}\n\n${ignore}`,
      html: layout(`Your sign-in code: ${code}`, [...lines, ignore], { ...link, label: `Sign in to ${product}` }),
    });
  }

  function resetMail(to: string, name: string, link: MailLink): MailMessage {
    const lines = [`Hello ${name},`, `Someone asked to reset the password of your ${product} account. The link works once, for one hour.`];
    return finish('reset-password', to, { name, ...linkVariables(link) }, {
      subject: 'Reset your password',
      text: `${lines.join('\n\n')}\n\n${textLink(link)}\n\nIf it was not you, ignore this mail: your password stays as it is.`,
      html: layout('Reset your password', [...lines, 'If it was not you, ignore this mail: your password stays as it is.'], { ...link, label: 'Choose a new password' }),
    });
  }

  function passwordChangedMail(to: string, name: string, when: string): MailMessage {
    const lines = [`Hello ${name},`, `The password of your ${product} account was changed at ${when} and every session was signed out.`, 'If this was not you, reset your password now and contact support.'];
    return finish('password-changed', to, { name, when }, { subject: 'Your password was changed', text: lines.join('\n\n'), html: layout('Your password was changed', lines) });
  }

  /** A change to how the account signs in (a second factor, a passkey): the owner hears of it at once. */
  function securityChangeMail(to: string, name: string, change: string, when: string): MailMessage {
    const lines = [`Hello ${name},`, `${change} on your ${product} account at ${when}.`, 'If this was not you, reset your password now, review Settings → Security, and contact support.'];
    return finish('security-change', to, { name, change, when }, { subject: 'A change to how you sign in', text: lines.join('\n\n'), html: layout('A change to how you sign in', lines) });
  }

  /** To the NEW address of a change of email: following the link makes it the account's sign-in address. */
  function emailChangeMail(to: string, name: string, link: MailLink): MailMessage {
    const lines = [`Hello ${name},`, `Someone asked to make this the sign-in email address of a ${product} account. Confirm it to make the change; the link works once, for 24 hours. Until then the account keeps its current address.`];
    return finish('email-change', to, { name, ...linkVariables(link) }, {
      subject: 'Confirm your new email address',
      text: `${lines.join('\n\n')}\n\n${textLink(link)}\n\nIf you did not ask for this, ignore this mail: nothing changes.`,
      html: layout('Confirm your new email address', [...lines, 'If you did not ask for this, ignore this mail: nothing changes.'], { ...link, label: 'Confirm new email address' }),
    });
  }

  /** To the OLD address once a change of email is confirmed: the owner hears of it where they used to. */
  function emailChangedMail(to: string, name: string, newEmail: string, when: string): MailMessage {
    const lines = [`Hello ${name},`, `The sign-in email address of your ${product} account was changed to ${newEmail} at ${when}. This address no longer signs in.`, 'If this was not you, contact support at once: someone with access to your account made the change.'];
    return finish('email-changed', to, { name, new_email: newEmail, when }, { subject: 'Your sign-in email address was changed', text: lines.join('\n\n'), html: layout('Your sign-in email address was changed', lines) });
  }

  /** The account was scheduled for deletion: signing in before `due` keeps it. */
  function deletionScheduledMail(to: string, name: string, due: string): MailMessage {
    const lines = [`Hello ${name},`, `Your ${product} account is scheduled for deletion: it and everything it holds will be deleted at ${due}. Every session was signed out and every API key you created was revoked.`, 'To keep the account, sign in before then (revoked API keys stay revoked). If this was not you, sign in now and change your password.'];
    return finish('deletion-scheduled', to, { name, due }, { subject: 'Your account is scheduled for deletion', text: lines.join('\n\n'), html: layout('Your account is scheduled for deletion', lines) });
  }

  /** A sign-in during the grace period cancelled the deletion. */
  function accountRestoredMail(to: string, name: string, when: string): MailMessage {
    const lines = [`Hello ${name},`, `A sign-in at ${when} cancelled the deletion of your ${product} account: it stays. API keys revoked when the deletion was asked for stay revoked; create new ones if you need them.`, 'If this was not you, reset your password now and contact support.'];
    return finish('account-restored', to, { name, when }, { subject: 'Your account was restored', text: lines.join('\n\n'), html: layout('Your account was restored', lines) });
  }

  /**
   * The purge could not delete the account (its grace is over): meanwhile it became the last owner
   * of an organization that has other members. The deletion is called off, the account stays.
   */
  function deletionCalledOffMail(to: string, name: string, organization: string): MailMessage {
    const lines = [
      `Hello ${name},`,
      `Your ${product} account was not deleted: you are the last owner of the organization ${organization}, which has other members, and deleting the account would leave it without one. The deletion is called off and the account stays; sign in as before (API keys revoked when you asked for the deletion stay revoked).`,
      `To delete the account, first make another member of ${organization} an owner (you can then leave it), or delete the organization, then ask again.`,
    ];
    return finish('deletion-called-off', to, { name, organization }, { subject: 'Your account was not deleted', text: lines.join('\n\n'), html: layout('Your account was not deleted', lines) });
  }

  /** An invitation to an organization (access/organizations/): the link works once, for 7 days, for this address only. */
  function invitationMail(to: string, inviter: string, organization: string, role: string, link: MailLink): MailMessage {
    const lines = [`Hello,`, `${inviter} invited you to join ${organization} on ${product} as ${role}. Sign in (or create an account) with this address, then open the link. It works once, for 7 days.`];
    return finish('invitation', to, { inviter, organization, role, ...linkVariables(link) }, {
      subject: `You are invited to join ${organization}`,
      text: `${lines.join('\n\n')}\n\n${textLink(link)}\n\nIf you did not expect this, ignore this mail.`,
      html: layout(`You are invited to join ${organization}`, [...lines, 'If you did not expect this, ignore this mail.'], { ...link, label: 'Accept the invitation' }),
    });
  }

  return { verificationMail, signInCodeMail, resetMail, passwordChangedMail, securityChangeMail, emailChangeMail, emailChangedMail, deletionScheduledMail, accountRestoredMail, deletionCalledOffMail, invitationMail };
}

export type MailTemplates = ReturnType<typeof mailTemplates>;
