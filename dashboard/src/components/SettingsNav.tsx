import { atLeast } from '../lib/api.ts';
import { useSession } from '../lib/session.tsx';
import { Icon, type IconName } from './Icon.tsx';
import { Link } from './Link.tsx';

/** `admin`: listed only for admins and owners of the organization acted for. */
export const SETTINGS_SECTIONS: readonly { href: string; label: string; icon: IconName; admin?: true }[] = [
  { href: '/settings/profile', label: 'Profile', icon: 'profile' },
  { href: '/settings/password', label: 'Password', icon: 'password' },
  { href: '/settings/security', label: 'Security', icon: 'security' },
  { href: '/settings/sessions', label: 'Sessions', icon: 'sessions' },
  { href: '/settings/security-log', label: 'Security log', icon: 'activity' },
  { href: '/settings/account', label: 'Account', icon: 'account' },
  { href: '/settings/api-keys', label: 'API keys', icon: 'key' },
  { href: '/settings/connected-apps', label: 'Connected apps', icon: 'connected' },
  { href: '/settings/organization', label: 'Organization', icon: 'organization' },
  { href: '/settings/members', label: 'Members', icon: 'members' },
  { href: '/settings/oauth-apps', label: 'OAuth apps', icon: 'apps', admin: true },
  { href: '/settings/audit-log', label: 'Audit log', icon: 'log', admin: true },
];

export function SettingsNav({ path }: { path: string }) {
  const { me } = useSession();
  return (
    <nav aria-label="Settings" class="subnav">
      <ul>
        {SETTINGS_SECTIONS.filter((s) => !s.admin || atLeast(me?.organization.role, 'admin')).map((s) => (
          <li key={s.href}>
            <Link href={s.href} aria-current={path === s.href ? 'page' : path.startsWith(`${s.href}/`) ? 'location' : undefined}>
              <Icon name={s.icon} />
              {s.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
