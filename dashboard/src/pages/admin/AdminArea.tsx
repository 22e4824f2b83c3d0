import { PageHeading } from '../../components/PageHeading.tsx';
import { useSession } from '../../lib/session.tsx';
import { NotFoundPage } from '../NotFoundPage.tsx';
import { AdminOrganizationPage } from './AdminOrganizationPage.tsx';
import { AdminUserPage } from './AdminUserPage.tsx';
import { AdminUsersPage } from './AdminUsersPage.tsx';

/** `/admin/<section>/<id>` → the id; null for any other path (or an id that is not valid percent-encoding). */
function idIn(section: 'users' | 'organizations', path: string): string | null {
  const raw = new RegExp(`^/admin/${section}/([^/]+)$`).exec(path)?.[1];
  try {
    return raw ? decodeURIComponent(raw) : null;
  } catch {
    return null;
  }
}

/**
 * `/admin/…`, for users with the admin role: `/admin` (users), `/admin/users/<id>`,
 * `/admin/organizations/<id>`. Anyone else gets a plain "admins only" page and no call is made
 * (the API would answer 403 anyway: this is a courtesy, not the protection).
 */
export function AdminArea({ path, query }: { path: string; query: URLSearchParams }) {
  const { me } = useSession();
  if (me?.role !== 'admin') return <AdminsOnly />;
  if (path === '/admin') return <AdminUsersPage query={query} />;
  const userId = idIn('users', path);
  if (userId) return <AdminUserPage key={userId} id={userId} />;
  const orgId = idIn('organizations', path);
  if (orgId) return <AdminOrganizationPage key={orgId} id={orgId} />;
  return <NotFoundPage />;
}

function AdminsOnly() {
  return (
    <>
      <PageHeading title="Admin" />
      <div class="alert alert-warning" role="alert">
        <p class="alert-title">For admins only.</p>
        <p>This area manages every user of the service, and your account is not an admin. If it should be, ask whoever runs this service.</p>
      </div>
    </>
  );
}
