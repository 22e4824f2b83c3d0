/**
 * The links Gatehouse mails (with APP_LINK_URL set, they open the app): verify-email,
 * reset-password, accept-invitation and sign-in, each carrying a single-use `token`. Parsed by hand rather than with `URL`,
 * whose React Native implementation does not read custom schemes' queries everywhere.
 */
import type { Gatehouse, Organization, Schemas } from '@gatehouse/sdk';

const PAGES = ['verify-email', 'reset-password', 'accept-invitation', 'sign-in'] as const;
type Page = (typeof PAGES)[number];

export type AuthLink = { kind: Page; token: string };

/** The auth link in `url`, or null when it is some other link of the app. */
export function parseAuthLink(url: string): AuthLink | null {
  const match = /^[A-Za-z][A-Za-z0-9+.-]*:(?:\/\/[^/?#]*)?([^?#]*)(?:\?([^#]*))?/.exec(url.trim());
  if (!match) return null;
  const page = (match[1] ?? '').replace(/\/+$/, '').split('/').pop();
  if (!(PAGES as readonly (string | undefined)[]).includes(page)) return null;
  let token: string | undefined;
  for (const pair of (match[2] ?? '').split('&')) {
    const at = pair.indexOf('=');
    const [name, value] = at < 0 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
    if (name === 'token') {
      try {
        token = decodeURIComponent(value.replace(/\+/g, ' '));
      } catch {
        return null;
      }
    }
  }
  return token ? { kind: page as Page, token } : null;
}

export type AuthLinkResult =
  | { kind: 'email-verified' }
  | { kind: 'reset-password'; token: string; complete(password: string, options?: { revokeApiKeys?: boolean }): Promise<void> }
  /** An invitation: what it is for (before signing in), and `accept()` once signed in with the address it was sent to. */
  | { kind: 'invitation'; token: string; preview: Schemas['InvitationPreview']; accept(): Promise<Organization> }
  /** A passwordless sign-in link: the session is stored (useSession's handleAuthLink also shows it, with the user). */
  | { kind: 'signed-in'; user?: Schemas['Me'] }
  | { kind: 'not-an-auth-link' };

/**
 * Completes what a mailed link is for: a verification link is verified at once, through `client`
 * and so with its session (a change of email's link is confirmed only by the account's owner
 * signed in: signed out it is refused with `authentication_required` and stays usable); a reset link
 * gives back `complete(newPassword)` for the screen that asks for it; it revokes the account's API keys too
 * unless `revokeApiKeys: false` (a reset usually follows a compromise, as the dashboard assumes); an
 * invitation link gives back its preview (the organization, who invites, the role) and `accept()`,
 * which joins once the person is signed in with the invited address. Server refusals (a used or
 * expired link) are thrown as GatehouseError (`invalid_token`, `invalid_invitation`).
 */
export async function handleAuthLink(client: Gatehouse, url: string): Promise<AuthLinkResult> {
  const link = parseAuthLink(url);
  if (!link) return { kind: 'not-an-auth-link' };
  if (link.kind === 'verify-email') {
    await client.auth.verifyEmail({ token: link.token });
    return { kind: 'email-verified' };
  }
  if (link.kind === 'sign-in') {
    await client.auth.verifyEmailSignIn({ token: link.token });
    return { kind: 'signed-in' };
  }
  if (link.kind === 'accept-invitation') {
    const preview = await client.invitations.preview(link.token);
    return { kind: 'invitation', token: link.token, preview, accept: () => client.invitations.accept(link.token) };
  }
  return {
    kind: 'reset-password',
    token: link.token,
    complete: async (password, options = {}) => {
      await client.auth.resetPassword({ token: link.token, password, revoke_api_keys: options.revokeApiKeys ?? true });
    },
  };
}
