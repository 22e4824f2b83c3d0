import { PageHeading } from '../../components/PageHeading.tsx';
import { filterOf, filterPath } from './user-filter.ts';
import { UserList } from './UserList.tsx';
import { UserSearchForm } from './UserSearchForm.tsx';

/** `/admin`: every user of the service, newest first, found by part of the address or name, tier and status. */
export function AdminUsersPage({ query }: { query: URLSearchParams }) {
  const filter = filterOf(query);
  return (
    <>
      <PageHeading title="Admin: Users">Everyone with an account on this service. Open one to change their tier or limits, disable them, or read their security log.</PageHeading>
      <section class="card" aria-labelledby="admin-users-title">
        <h2 id="admin-users-title">Users</h2>
        <UserSearchForm filter={filter} />
        {/* Keyed by the filter: a new search starts again from the newest page. */}
        <UserList key={filterPath(filter)} filter={filter} />
      </section>
    </>
  );
}
