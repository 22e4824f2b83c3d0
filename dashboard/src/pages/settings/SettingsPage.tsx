import { PageHeading } from '../../components/PageHeading.tsx';
import { SETTINGS_SECTIONS, SettingsNav } from '../../components/SettingsNav.tsx';
import { NotFoundPage } from '../NotFoundPage.tsx';
import { ApiKeysPage } from './ApiKeysPage.tsx';
import { PasswordPage } from './PasswordPage.tsx';
import { ProfilePage } from './ProfilePage.tsx';
import { SecurityPage } from './SecurityPage.tsx';
import { SessionsPage } from './SessionsPage.tsx';

const SECTIONS: Record<string, () => preact.JSX.Element | null> = {
  '/settings/profile': ProfilePage,
  '/settings/password': PasswordPage,
  '/settings/security': SecurityPage,
  '/settings/sessions': SessionsPage,
  '/settings/api-keys': ApiKeysPage,
};

export function SettingsPage({ path }: { path: string }) {
  const Section = SECTIONS[path];
  if (!Section) return <NotFoundPage />;
  const label = SETTINGS_SECTIONS.find((s) => s.href === path)?.label ?? 'Settings';
  return (
    <>
      <PageHeading title={`Settings: ${label}`} />
      <div class="settings">
        <SettingsNav path={path} />
        <div class="settings-body">
          <Section />
        </div>
      </div>
    </>
  );
}
