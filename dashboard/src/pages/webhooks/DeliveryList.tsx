import { useEffect, useRef, useState } from 'preact/hooks';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Icon } from '../../components/Icon.tsx';
import { LoadMore } from '../../components/LoadMore.tsx';
import { Notice } from '../../components/Notice.tsx';
import { SelectField } from '../../components/SelectField.tsx';
import { gatehouse, type WebhookDelivery } from '../../lib/api.ts';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { usePagedList } from '../../lib/hooks.ts';
import { DeliveryItem } from './DeliveryItem.tsx';
import { RedeliverFailedDialog, type Redelivered } from './RedeliverFailedDialog.tsx';

type Status = WebhookDelivery['status'];

const FILTERS: { value: Status | ''; label: string }[] = [
  { value: '', label: 'All deliveries' },
  { value: 'failed', label: 'Failed' },
  { value: 'pending', label: 'Pending' },
  { value: 'delivered', label: 'Delivered' },
];

/** While a delivery is due within this long, the list reads itself again every few seconds. */
const FOLLOW_WITHIN_MS = 60_000;
const FOLLOW_EVERY_MS = 2_000;

/** The server's most a bulk redelivery sends in one call (the rest stay failed for the next). */
const MAX_REDELIVER_PER_CALL = 10_000;

function describeRedelivered({ redelivered: n, since }: Redelivered): string {
  const from = formatDateTime(since);
  if (n === 0) return `No failed delivery since ${from}: nothing was sent again.`;
  const queued = n === 1 ? `1 failed delivery since ${from} is queued again` : `${formatNumber(n)} failed deliveries since ${from} are queued again`;
  const more = n >= MAX_REDELIVER_PER_CALL ? ' That is the most one request sends: redeliver again for the rest.' : '';
  return `${queued}, each with its original webhook-id.${more}`;
}

interface Props {
  endpointId: string;
  /** A disabled endpoint takes no redelivery: its buttons are hidden. */
  enabled: boolean;
  /** A delivery this page just queued (Send test event), which makes the list read itself again. */
  sent: WebhookDelivery | null;
}

/** The endpoint's deliveries, newest first, with a status filter and "Redeliver all failed since…". */
export function DeliveryList({ endpointId, enabled, sent }: Props) {
  const [status, setStatus] = useState<Status | ''>('');
  const [asking, setAsking] = useState(false);
  const [bulk, setBulk] = useState<Redelivered | null>(null);
  return (
    <section class="card" aria-labelledby="deliveries-title">
      <div class="card-head card-head-wrap">
        <h2 id="deliveries-title">Deliveries</h2>
        <div class="filter">
          <SelectField label="Show" name="delivery-status" value={status} onValue={(value) => setStatus(value as Status | '')} options={FILTERS} />
        </div>
        {enabled && (
          <button type="button" class="button button-secondary button-small" onClick={() => setAsking(true)}>
            <Icon name="send" />
            Redeliver all failed since…
          </button>
        )}
      </div>
      <p class="hint">Each event sent to this endpoint, with every attempt: a delivery is retried with backoff until the receiver answers 2xx, then given up.</p>
      {bulk && <Notice>{describeRedelivered(bulk)}</Notice>}
      {/* Keyed by the filter: a new choice starts again from the newest page. */}
      <Deliveries key={status} endpointId={endpointId} enabled={enabled} status={status} sent={sent} bulk={bulk} />
      <RedeliverFailedDialog
        open={asking}
        endpointId={endpointId}
        onClose={() => setAsking(false)}
        onQueued={(result) => {
          setBulk(result);
          setAsking(false);
        }}
      />
    </section>
  );
}

interface DeliveriesProps {
  endpointId: string;
  enabled: boolean;
  status: Status | '';
  /** What this page did that changes the list: a test event sent, failed ones queued again. */
  sent: WebhookDelivery | null;
  bulk: Redelivered | null;
}

function Deliveries({ endpointId, enabled, status, sent, bulk }: DeliveriesProps) {
  const list = usePagedList((cursor) => gatehouse.webhooks.deliveries(endpointId, { limit: 25, ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) }));
  // Read again after each change, but not at mount: the list has just been read then.
  const mounted = useRef(false);
  useEffect(() => {
    if (mounted.current) void list.reload();
    mounted.current = true;
  }, [sent, bulk]);
  // Follow deliveries about to be attempted, so a test event is seen arriving (or failing).
  const dueSoon = list.rows.some((d) => d.status === 'pending' && (d.next_attempt_at === null || Date.parse(d.next_attempt_at) - Date.now() < FOLLOW_WITHIN_MS));
  useEffect(() => {
    if (!dueSoon || list.loading) return;
    const timer = setTimeout(() => document.visibilityState === 'visible' && void list.reload(), FOLLOW_EVERY_MS);
    return () => clearTimeout(timer);
  }, [dueSoon, list.loading]);
  return (
    <div aria-busy={list.loading ? 'true' : undefined}>
      <ErrorAlert error={list.error} />
      {list.loaded &&
        (list.rows.length === 0 ? (
          <EmptyState icon="send" title={status ? `No ${status} deliveries.` : 'No deliveries yet.'}>
            {status ? 'Choose “All deliveries” to see the others.' : 'Send a test event to see one arrive, with the receiver’s answer.'}
          </EmptyState>
        ) : (
          <ul class="deliveries">
            {list.rows.map((d) => (
              // A redelivered one is due now: reading the list again starts following it.
              <DeliveryItem key={d.id} delivery={d} enabled={enabled} onRedelivered={() => void list.reload()} />
            ))}
          </ul>
        ))}
      <div class="actions">
        <button type="button" class="button button-secondary button-small" onClick={() => void list.reload()}>
          <Icon name="refresh" />
          Refresh
        </button>
      </div>
      <LoadMore list={list} />
    </div>
  );
}
