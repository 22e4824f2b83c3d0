import { PageHeading } from '../../components/PageHeading.tsx';
import { isTier, type Tier } from './plan.ts';
import { UserList } from './UserList.tsx';
import { UserSearchForm } from './UserSearchForm.tsx';

/** What the list shows, read from the address (`/admin?q=…&tier=…&disabled=…`), so back and reload keep it. */
export interface UserFilter {
  q: string;
  tier: Tier | '';
  /** '': everyone; 'true': disabled accounts only; 'false': enabled ones only. */
  disabled: '' | 'true' | 'false';
}

export function filterOf(query: URLSearchParams): UserFilter {
  const tier = query.get('tier') ?? '';
  const disabled = query.get('disabled') ?? '';
  return {
    q: (query.get('q') ?? '').trim().slice(0, 100),
    tier: isTier(tier) ? tier : '',
    disabled: disabled === 'true' || disabled === 'false' ? disabled : '',
  };
}

export function filterPath(filter: UserFilter): string {
  const params = new URLSearchParams();
  if (filter.q.trim()) params.set('q', filter.q.trim());
  if (filter.tier) params.set('tier', filter.tier);
  if (filter.disabled) params.set('disabled', filter.disabled);
  return params.size ? `/admin?${params}` : '/admin';
}

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
