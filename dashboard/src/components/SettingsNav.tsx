import { atLeast } from '../lib/api.ts';
import { useSession } from '../lib/session.tsx';
import { Link } from './Link.tsx';

/** `admin`: listed only for admins and owners of the organization acted for. */
export const SETTINGS_SECTIONS: readonly { href: string; label: string; admin?: true }[] = [
  { href: '/settings/profile', label: 'Profile' },
  { href: '/settings/password', label: 'Password' },
  { href: '/settings/security', label: 'Security' },
  { href: '/settings/sessions', label: 'Sessions' },
  { href: '/settings/api-keys', label: 'API keys' },
  { href: '/settings/organization', label: 'Organization' },
  { href: '/settings/members', label: 'Members' },
  { href: '/settings/audit-log', label: 'Audit log', admin: true },
];

export function SettingsNav({ path }: { path: string }) {
  const { me } = useSession();
  return (
    <nav aria-label="Settings" class="subnav">
      <ul>
        {SETTINGS_SECTIONS.filter((s) => !s.admin || atLeast(me?.organization.role, 'admin')).map((s) => (
          <li key={s.href}>
            <Link href={s.href} aria-current={path === s.href ? 'page' : path.startsWith(`${s.href}/`) ? 'location' : undefined}>
              {s.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
