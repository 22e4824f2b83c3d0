import type { ComponentChildren } from 'preact';
import { PRODUCT_NAME } from '../lib/product-name.ts';
import { useSession } from '../lib/session.tsx';
import { Icon, type IconName } from './Icon.tsx';
import { Link } from './Link.tsx';
import { OrganizationSwitcher } from './OrganizationSwitcher.tsx';

const NAV: { href: string; label: string; icon: IconName; match: (p: string) => boolean; adminOnly?: true }[] = [
  { href: '/', label: 'Overview', icon: 'overview', match: (p) => p === '/' },
  { href: '/agents', label: 'Agents', icon: 'agents', match: (p) => p.startsWith('/agents') },
  { href: '/chats', label: 'Chats', icon: 'chats', match: (p) => p.startsWith('/chats') },
  { href: '/webhooks', label: 'Webhooks', icon: 'webhooks', match: (p) => p.startsWith('/webhooks') },
  { href: '/settings/profile', label: 'Settings', icon: 'settings', match: (p) => p.startsWith('/settings') },
  // Shown to users with the admin role only (the API refuses everyone else anyway).
  { href: '/admin', label: 'Admin', icon: 'admin', match: (p) => p.startsWith('/admin'), adminOnly: true },
];

/** The frame of every signed-in page: skip link, header with navigation, the page. */
export function AppShell({ path, children }: { path: string; children: ComponentChildren }) {
  const { me, logOut } = useSession();
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <Link href="/" class="brand">
          {PRODUCT_NAME}
        </Link>
        <nav aria-label="Main" class="mainnav">
          <ul>
            {NAV.filter((item) => !item.adminOnly || me?.role === 'admin').map((item) => (
              <li key={item.href}>
                <Link href={item.href} aria-current={item.match(path) ? 'page' : undefined}>
                  <Icon name={item.icon} />
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <OrganizationSwitcher />
        <div class="account">
          <span class="account-email" title={me?.email ?? undefined}>
            {me === null || me === undefined ? null : me.email ?? 'Guest'}
          </span>
          <button type="button" class="button button-secondary button-small" onClick={() => void logOut()}>
            <Icon name="logout" />
            Log out
          </button>
        </div>
      </header>
      {/* Keyed by the organization acted for: switching remounts the page, which loads its data again. */}
      <main id="main" class="page" tabIndex={-1} key={me?.organization.id}>
        {children}
      </main>
    </>
  );
}

/** The frame of the pages one sees signed out: login, sign-up, password reset, email check. */
export function PublicShell({ children }: { children: ComponentChildren }) {
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar topbar-public">
        <Link href="/" class="brand">
          {PRODUCT_NAME}
        </Link>
        <a class="topbar-link" href="/docs">
          API reference
        </a>
      </header>
      <main id="main" class="page page-narrow" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
