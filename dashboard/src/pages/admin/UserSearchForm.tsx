import { useState } from 'preact/hooks';
import { ActionForm } from '../../components/ActionForm.tsx';
import { Field } from '../../components/Field.tsx';
import { Icon } from '../../components/Icon.tsx';
import { SelectField } from '../../components/SelectField.tsx';
import { navigate } from '../../lib/router.ts';
import { TIER_OPTIONS } from './plan.ts';
import { filterPath, type UserFilter } from './user-filter.ts';

const STATUS_OPTIONS = [
  { value: '', label: 'Everyone' },
  { value: 'false', label: 'Enabled' },
  { value: 'true', label: 'Disabled' },
];

/** The search box (applied with Enter or Search) and the tier and status filters (applied when chosen). */
export function UserSearchForm({ filter }: { filter: UserFilter }) {
  const [q, setQ] = useState(filter.q);
  const apply = (next: Partial<UserFilter>) => navigate(filterPath({ ...filter, q, ...next }), { replace: true });
  return (
    <ActionForm class="search-row" role="search" aria-label="Find users" onSubmit={() => apply({})}>
      <Field label="Name or email contains" name="admin-user-search" type="search" maxLength={100} value={q} onValue={setQ} autocomplete="off" />
      <SelectField label="Tier" name="admin-user-tier" value={filter.tier} options={[{ value: '', label: 'Any tier' }, ...TIER_OPTIONS]} onValue={(tier) => apply({ tier: tier as UserFilter['tier'] })} />
      <SelectField label="Status" name="admin-user-status" value={filter.disabled} options={STATUS_OPTIONS} onValue={(disabled) => apply({ disabled: disabled as UserFilter['disabled'] })} />
      <button type="submit" class="button button-primary">
        <Icon name="search" />
        Search
      </button>
    </ActionForm>
  );
}
