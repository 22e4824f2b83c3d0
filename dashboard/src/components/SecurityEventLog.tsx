import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Page, QueryParams } from '@gatehouse/sdk';
import type { SecurityEvent } from '../lib/api.ts';
import { describeUserAgent, formatDateTime } from '../lib/format.ts';
import { usePagedList } from '../lib/hooks.ts';
import { isWorthALook, SECURITY_EVENT_NAMES, securityEventDetails, securityEventName } from '../lib/security-events.ts';
import { DataTable } from './DataTable.tsx';
import { EmptyState } from './EmptyState.tsx';
import { ErrorAlert } from './ErrorAlert.tsx';
import { Facts } from './Facts.tsx';
import { LoadMore } from './LoadMore.tsx';
import { SelectField } from './SelectField.tsx';

type EventType = SecurityEvent['type'];
/** One page of a security log: the same query for the user's own log and an admin's view of another's. */
export type SecurityEventsQuery = QueryParams<'listSecurityEvents'>;

/** The filter's choices: all, then every named type, alphabetically by name. */
const TYPE_OPTIONS = [
  { value: '', label: 'All events' },
  ...Object.entries(SECURITY_EVENT_NAMES)
    .map(([value, label]) => ({ value, label }))
    .sort((a, b) => a.label.localeCompare(b.label)),
];

interface Props {
  /** Names the heading (`<id>-title`) and the filter (`<id>-type`): one log per page. */
  id: string;
  title: string;
  /** The paragraph under the heading: whose log this is, and what to do about it. */
  hint: ComponentChildren;
  /** What the empty log (no filter chosen) says. */
  emptyNext: string;
  load: (query: SecurityEventsQuery) => Promise<Page<SecurityEvent>>;
}

/**
 * A security log as a card, newest first with "Show more", and **Show** narrowing it to one type:
 * Settings → Security log (the user's own) and an admin's page of a user.
 */
export function SecurityEventLog({ id, title, hint, emptyNext, load }: Props) {
  const [type, setType] = useState('');
  return (
    <section class="card" aria-labelledby={`${id}-title`}>
      <div class="card-head card-head-wrap">
        <h2 id={`${id}-title`}>{title}</h2>
        <div class="filter">
          <SelectField label="Show" name={`${id}-type`} value={type} onValue={setType} options={TYPE_OPTIONS} />
        </div>
      </div>
      <p class="hint">{hint}</p>
      {/* Keyed by the filter: a new choice starts again from the newest page. */}
      <SecurityEvents key={type} caption={title} type={type as EventType | ''} emptyNext={emptyNext} load={load} />
    </section>
  );
}

/** "Chrome on Linux", and the whole user agent under it when the summary leaves something out. */
function Device({ userAgent }: { userAgent: string | null }) {
  if (!userAgent) return <>—</>;
  const summary = describeUserAgent(userAgent);
  return summary === userAgent ? <>{summary}</> : <>{summary} <span class="user-agent">{userAgent}</span></>;
}

function SecurityEvents({ caption, type, emptyNext, load }: { caption: string; type: EventType | ''; emptyNext: string; load: Props['load'] }) {
  const events = usePagedList((cursor) => load({ limit: 25, ...(type ? { type } : {}), ...(cursor ? { cursor } : {}) }));
  return (
    <div aria-busy={events.loading ? 'true' : undefined}>
      <ErrorAlert error={events.error} />
      {events.loaded && (
        <DataTable<SecurityEvent>
          caption={caption}
          rows={events.rows}
          rowKey={(e) => e.id}
          empty={
            <EmptyState icon="activity" title={type ? `No “${securityEventName(type)}” events.` : 'Nothing recorded yet.'}>
              {type ? 'Choose “All events” to see everything.' : emptyNext}
            </EmptyState>
          }
          columns={[
            { label: 'When', render: (e) => formatDateTime(e.created_at) },
            { label: 'Event', wrap: true, render: (e) => (isWorthALook(e.type) ? <span class="badge badge-warn badge-wrap">{securityEventName(e.type)}</span> : <strong>{securityEventName(e.type)}</strong>) },
            { label: 'IP address', render: (e) => e.ip ?? '—' },
            { label: 'Device', wrap: true, render: (e) => <Device userAgent={e.user_agent} /> },
            {
              label: 'Details',
              wrap: true,
              render: (e) => {
                const details = securityEventDetails(e.detail);
                return details.length === 0 ? '—' : <Facts items={details} compact />;
              },
            },
          ]}
        />
      )}
      <LoadMore list={events} />
    </div>
  );
}
