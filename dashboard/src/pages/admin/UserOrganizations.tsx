import { DataTable } from '../../components/DataTable.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { Link } from '../../components/Link.tsx';
import { organizationPath, type AdminUserDetail } from './plan.ts';

type Membership = AdminUserDetail['organizations'][number];

/** The organizations a user belongs to and their role in each; each name opens the organization's tier and limits. */
export function UserOrganizations({ organizations }: { organizations: Membership[] }) {
  return (
    <section class="card" aria-labelledby="user-orgs-title">
      <h2 id="user-orgs-title">Organizations</h2>
      <DataTable<Membership>
        caption="Organizations of this user"
        rows={organizations}
        rowKey={(o) => o.id}
        empty={<EmptyState icon="organization" title="No organization.">An account belongs at least to its personal organization; this one is being deleted.</EmptyState>}
        columns={[
          {
            label: 'Name',
            wrap: true,
            render: (o) => (
              <Link href={organizationPath(o)} aria-label={`${o.name}: tier and limits`}>
                {o.name}
              </Link>
            ),
          },
          { label: 'Kind', render: (o) => (o.personal ? 'Personal' : 'Shared') },
          { label: 'Their role', render: (o) => o.role },
        ]}
      />
    </section>
  );
}
