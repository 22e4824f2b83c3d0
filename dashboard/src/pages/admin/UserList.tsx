import { DataTable } from '../../components/DataTable.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Link } from '../../components/Link.tsx';
import { LoadMore } from '../../components/LoadMore.tsx';
import { gatehouse } from '../../lib/api.ts';
import { formatDate } from '../../lib/format.ts';
import { usePagedList } from '../../lib/hooks.ts';
import { AccountStatus } from './AccountStatus.tsx';
import { TIER_OPTIONS, userPath, type AdminUser } from './plan.ts';
import type { UserFilter } from './user-filter.ts';

const tierName = (tier: AdminUser['tier']) => TIER_OPTIONS.find((t) => t.value === tier)?.label ?? tier;

/** The users a filter keeps (GET /v1/admin/users), newest first, 50 a page; each email links to the user's page. */
export function UserList({ filter }: { filter: UserFilter }) {
  const users = usePagedList((cursor) =>
    gatehouse.admin.listUsers({
      limit: 50,
      ...(filter.q ? { q: filter.q } : {}),
      ...(filter.tier ? { tier: filter.tier } : {}),
      ...(filter.disabled ? { disabled: filter.disabled === 'true' } : {}),
      ...(cursor ? { cursor } : {}),
    }),
  );
  const filtered = filter.q !== '' || filter.tier !== '' || filter.disabled !== '';
  return (
    <div aria-busy={users.loading ? 'true' : undefined}>
      <ErrorAlert error={users.error} />
      {users.loaded && (
        <DataTable<AdminUser>
          caption="Users"
          rows={users.rows}
          rowKey={(u) => u.id}
          empty={
            <EmptyState icon="members" title={filtered ? 'No user matches.' : 'No users yet.'}>
              {filtered ? 'Try part of the name or address only, or choose “Any tier” and “Everyone”.' : 'People who sign up are listed here.'}
            </EmptyState>
          }
          columns={[
            {
              label: 'Email',
              render: (u) => (
                <Link href={userPath(u)} class="long-text">
                  {u.email}
                </Link>
              ),
            },
            { label: 'Name', wrap: true, render: (u) => u.name || '—' },
            { label: 'Tier', render: (u) => tierName(u.tier) },
            { label: 'Status', render: (u) => <AccountStatus user={u} /> },
            { label: 'Created', render: (u) => formatDate(u.created_at) },
          ]}
        />
      )}
      <LoadMore list={users} />
    </div>
  );
}
