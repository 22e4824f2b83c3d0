import { isTier, type Tier } from './plan.ts';

// Its own module: the page reads the filter, the search form writes it and the list applies it;
// kept in the page, the form and the list imported back from the page that imports them.

/** What the users' list shows, read from the address (`/admin?q=…&tier=…&disabled=…`), so back and reload keep it. */
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
