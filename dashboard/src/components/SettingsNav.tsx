import { Link } from './Link.tsx';

export const SETTINGS_SECTIONS = [
  { href: '/settings/profile', label: 'Profile' },
  { href: '/settings/password', label: 'Password' },
  { href: '/settings/security', label: 'Security' },
  { href: '/settings/sessions', label: 'Sessions' },
  { href: '/settings/api-keys', label: 'API keys' },
] as const;

export function SettingsNav({ path }: { path: string }) {
  return (
    <nav aria-label="Settings" class="subnav">
      <ul>
        {SETTINGS_SECTIONS.map((s) => (
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
