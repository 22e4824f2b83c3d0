import { PageHeading } from '../../components/PageHeading.tsx';
import { SETTINGS_SECTIONS, SettingsNav } from '../../components/SettingsNav.tsx';
import { NotFoundPage } from '../NotFoundPage.tsx';
import { AccountPage } from './AccountPage.tsx';
import { ApiKeyPage } from './ApiKeyPage.tsx';
import { ApiKeysPage } from './ApiKeysPage.tsx';
import { AuditLogPage } from './AuditLogPage.tsx';
import { ConnectedAppsPage } from './ConnectedAppsPage.tsx';
import { MembersPage } from './MembersPage.tsx';
import { OauthAppsPage } from './OauthAppsPage.tsx';
import { OrganizationPage } from './OrganizationPage.tsx';
import { PasswordPage } from './PasswordPage.tsx';
import { ProfilePage } from './ProfilePage.tsx';
import { SecurityLogPage } from './SecurityLogPage.tsx';
import { SecurityPage } from './SecurityPage.tsx';
import { SessionsPage } from './SessionsPage.tsx';

const SECTIONS: Record<string, () => preact.JSX.Element | null> = {
  '/settings/profile': ProfilePage,
  '/settings/password': PasswordPage,
  '/settings/security': SecurityPage,
  '/settings/sessions': SessionsPage,
  '/settings/security-log': SecurityLogPage,
  '/settings/account': AccountPage,
  '/settings/api-keys': ApiKeysPage,
  '/settings/connected-apps': ConnectedAppsPage,
  '/settings/oauth-apps': OauthAppsPage,
  '/settings/organization': OrganizationPage,
  '/settings/members': MembersPage,
  '/settings/audit-log': AuditLogPage,
};

/** `/settings/api-keys/<id>` → the id; null for any other path (or an id that is not valid percent-encoding). */
function keyIdOf(path: string): string | null {
  const raw = /^\/settings\/api-keys\/([^/]+)$/.exec(path)?.[1];
  try {
    return raw ? decodeURIComponent(raw) : null;
  } catch {
    return null;
  }
}

export function SettingsPage({ path }: { path: string }) {
  const keyId = keyIdOf(path);
  const Section = SECTIONS[path];
  if (!Section && !keyId) return <NotFoundPage />;
  const label = SETTINGS_SECTIONS.find((s) => s.href === path || path.startsWith(`${s.href}/`))?.label ?? 'Settings';
  return (
    <>
      <PageHeading title={`Settings: ${label}`} />
      <div class="settings">
        <SettingsNav path={path} />
        <div class="settings-body">
          {keyId ? <ApiKeyPage key={keyId} id={keyId} /> : Section && <Section />}
        </div>
      </div>
    </>
  );
}
