import { useState } from 'preact/hooks';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Facts } from '../../components/Facts.tsx';
import { Icon } from '../../components/Icon.tsx';
import { Link } from '../../components/Link.tsx';
import { Notice } from '../../components/Notice.tsx';
import { PageHeading } from '../../components/PageHeading.tsx';
import { gatehouse, type WebhookDelivery, type WebhookEndpoint } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useAction, useResource } from '../../lib/hooks.ts';
import { useConfirm } from '../../lib/use-confirm.ts';
import { DeliveryList } from './DeliveryList.tsx';
import { endpointName, EndpointStatus } from './EndpointStatus.tsx';
import { SigningSecretSection } from './SigningSecretSection.tsx';

function EndpointFacts({ endpoint: e }: { endpoint: WebhookEndpoint }) {
  return (
    <Facts
      items={[
        ['URL', <code class="url">{e.url}</code>],
        ['Status', <EndpointStatus endpoint={e} />],
        ['Events', e.events.join(', ')],
        ['Description', e.description || '—'],
        ['Added', formatDateTime(e.created_at)],
        ['Changed', formatDateTime(e.updated_at)],
        ['Id', <code>{e.id}</code>],
      ]}
    />
  );
}

/** `/webhooks/<id>`: one endpoint, turned on and off, tested, its deliveries with every attempt (redelivered), and its secret rotated. */
export function WebhookPage({ id }: { id: string }) {
  const endpoint = useResource(() => gatehouse.webhooks.get(id), [id]);
  const [notice, setNotice] = useState<string | null>(null);
  const [sent, setSent] = useState<WebhookDelivery | null>(null);
  const enable = useAction(async () => {
    endpoint.setData(await gatehouse.webhooks.update(id, { enabled: true }));
    setNotice('The endpoint is enabled: new events are delivered to it again.');
  });
  const disable = useConfirm(async (target: WebhookEndpoint) => {
    endpoint.setData(await gatehouse.webhooks.update(target.id, { enabled: false }));
    setNotice('The endpoint is disabled: no events are delivered to it until you enable it.');
  });
  const test = useAction(async () => {
    setNotice(null);
    const delivery = await gatehouse.webhooks.test(id);
    setSent(delivery);
    setNotice(`A test event is on its way (webhook-id ${delivery.event_id}); it appears under Deliveries.`);
  });
  const e = endpoint.data;
  return (
    <>
      <PageHeading title={e ? `Webhook: ${endpointName(e)}` : 'Webhook endpoint'} />
      <Link href="/webhooks" class="back-link">
        <Icon name="back" />
        All webhook endpoints
      </Link>
      <ErrorAlert error={endpoint.error} />
      {e && (
        <>
          <section class="card" aria-labelledby="endpoint-title">
            <div class="card-head card-head-wrap">
              <h2 id="endpoint-title">Endpoint</h2>
              <div class="actions">
                {e.enabled && (
                  <>
                    <button type="button" class="button button-primary button-small" aria-disabled={test.busy ? 'true' : undefined} onClick={() => void test.run()}>
                      <Icon name="send" />
                      {test.busy ? 'Sending…' : 'Send test event'}
                    </button>
                    <button type="button" class="button button-secondary button-small" onClick={() => disable.ask(e)}>
                      <Icon name="power" />
                      Disable
                    </button>
                  </>
                )}
              </div>
            </div>
            {notice && <Notice>{notice}</Notice>}
            <ErrorAlert error={test.error ?? enable.error ?? disable.error} />
            {!e.enabled && (
              <div class="alert alert-warning">
                <p class="alert-title">No events are delivered to this endpoint.</p>
                <p>{e.disabled_reason === 'The receiver answered 410 Gone.' ? 'Its receiver answered 410 Gone, which asks senders to stop. Re-enable it once the receiver is back.' : `Why: ${e.disabled_reason ?? 'it was disabled'}.`}</p>
                <button type="button" class="button button-primary button-small" aria-disabled={enable.busy ? 'true' : undefined} onClick={() => void enable.run()}>
                  <Icon name="power" />
                  {enable.busy ? 'Enabling…' : 'Re-enable'}
                </button>
              </div>
            )}
            <EndpointFacts endpoint={e} />
          </section>
          <DeliveryList endpointId={e.id} enabled={e.enabled} sent={sent} />
          <SigningSecretSection endpoint={e} onRotated={endpoint.setData} />
          <ConfirmDialog open={disable.target !== null} title="Disable this endpoint?" confirmLabel="Disable endpoint" busy={disable.busy} onConfirm={disable.confirm} onCancel={disable.cancel}>
            <p>
              No events are delivered to <code>{e.url}</code> until you enable it again: its pending deliveries fail, and events that happen meanwhile are not sent to it.
            </p>
          </ConfirmDialog>
        </>
      )}
    </>
  );
}
