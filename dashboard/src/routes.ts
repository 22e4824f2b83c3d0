/**
 * Client routes. The server answers index.html at exactly these (server/src/http/dashboard.ts,
 * DASHBOARD_ROUTES; `/settings/*` covers the settings sections and each API key's page, `/chats/*`
 * each chat's page, `/webhooks/*` each webhook endpoint's page, `/admin/*` the admin area's user and organization pages); test/routes.test.ts checks both agree. A path ending in `/*` is that prefix and
 * anything after it.
 */
export type Access = 'signed-in' | 'signed-out' | 'any';

export interface RouteDef {
  path: string;
  access: Access;
}

export const ROUTES: RouteDef[] = [
  { path: '/', access: 'signed-in' },
  { path: '/login', access: 'signed-out' },
  { path: '/signup', access: 'signed-out' },
  { path: '/forgot-password', access: 'any' },
  { path: '/reset-password', access: 'any' },
  { path: '/verify-email', access: 'any' },
  // A mailed sign-in link: signed in already, the router goes on to the overview and leaves the link unspent.
  { path: '/sign-in', access: 'signed-out' },
  { path: '/oidc-callback', access: 'any' },
  { path: '/accept-invitation', access: 'any' },
  { path: '/oauth/consent', access: 'signed-in' },
  { path: '/agents', access: 'signed-in' },
  { path: '/chats', access: 'signed-in' },
  { path: '/chats/*', access: 'signed-in' },
  { path: '/webhooks', access: 'signed-in' },
  { path: '/webhooks/*', access: 'signed-in' },
  { path: '/admin', access: 'signed-in' },
  { path: '/admin/*', access: 'signed-in' },
  { path: '/settings', access: 'signed-in' },
  { path: '/settings/profile', access: 'signed-in' },
  { path: '/settings/password', access: 'signed-in' },
  { path: '/settings/security', access: 'signed-in' },
  { path: '/settings/sessions', access: 'signed-in' },
  { path: '/settings/security-log', access: 'signed-in' },
  { path: '/settings/account', access: 'signed-in' },
  { path: '/settings/api-keys', access: 'signed-in' },
  { path: '/settings/api-keys/*', access: 'signed-in' },
  { path: '/settings/connected-apps', access: 'signed-in' },
  { path: '/settings/oauth-apps', access: 'signed-in' },
  { path: '/settings/organization', access: 'signed-in' },
  { path: '/settings/members', access: 'signed-in' },
  { path: '/settings/audit-log', access: 'signed-in' },
];

const matches = (route: string, path: string) => route === path || (route.endsWith('/*') && path.startsWith(route.slice(0, -1)));

export function accessOf(path: string): Access | null {
  return ROUTES.find((r) => matches(r.path, path))?.access ?? (path.startsWith('/settings/') ? 'signed-in' : null);
}
