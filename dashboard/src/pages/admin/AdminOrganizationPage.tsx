import { useState } from 'preact/hooks';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Facts } from '../../components/Facts.tsx';
import { Icon } from '../../components/Icon.tsx';
import { Link } from '../../components/Link.tsx';
import { Notice } from '../../components/Notice.tsx';
import { PageHeading } from '../../components/PageHeading.tsx';
import { gatehouse } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useResource } from '../../lib/hooks.ts';
import { limitsText, TIER_OPTIONS } from './plan.ts';
import { PlanForm } from './PlanForm.tsx';

/** `/admin/organizations/<id>`: an organization's tier and limits, the budget all its members and keys share. */
export function AdminOrganizationPage({ id }: { id: string }) {
  const org = useResource(() => gatehouse.admin.getOrganization(id), [id]);
  const [notice, setNotice] = useState<string | null>(null);
  const o = org.data;
  return (
    <>
      <PageHeading title={o ? `Admin: ${o.name}` : 'Admin: organization'} />
      <Link href="/admin" class="back-link">
        <Icon name="back" />
        All users
      </Link>
      <ErrorAlert error={org.error} />
      {o && (
        <>
          <section class="card" aria-labelledby="org-title">
            <h2 id="org-title">Organization</h2>
            {notice && <Notice>{notice}</Notice>}
            <Facts
              items={[
                ['Name', o.name],
                ['Kind', o.personal ? 'Personal' : 'Shared'],
                ['Tier', TIER_OPTIONS.find((t) => t.value === o.tier)?.label ?? o.tier],
                ['Limits', limitsText(o)],
                ['Created', formatDateTime(o.created_at)],
                ['Changed', formatDateTime(o.updated_at)],
                ['Id', <code>{o.id}</code>],
              ]}
            />
          </section>
          <PlanForm
            id="org-plan"
            plan={o}
            save={(body) => gatehouse.admin.updateOrganization(id, body)}
            onSaved={(updated) => {
              org.setData(updated);
              setNotice(`Saved: ${updated.name} is on the ${updated.tier} tier, ${limitsText(updated)}.`);
            }}
          >
            The budget every member and API key of {o.name} spends from{o.personal ? ' (a personal organization: its owner’s own account)' : ''}.
          </PlanForm>
        </>
      )}
    </>
  );
}
