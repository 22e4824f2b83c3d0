import { useState } from 'preact/hooks';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Facts, type Fact } from '../../components/Facts.tsx';
import { Icon } from '../../components/Icon.tsx';
import { Link } from '../../components/Link.tsx';
import { Notice } from '../../components/Notice.tsx';
import { UsageChart } from '../../components/UsageChart.tsx';
import { gatehouse, type ApiKey } from '../../lib/api.ts';
import { formatDate, formatDateTime } from '../../lib/format.ts';
import { useResource } from '../../lib/hooks.ts';
import { isExpired, rateLimitText, refillText, usesText } from '../../lib/key-limits.ts';
import { RenameKeyDialog } from './RenameKeyDialog.tsx';
import { RollKeyDialog } from './RollKeyDialog.tsx';

function KeyFacts({ apiKey: k }: { apiKey: ApiKey }) {
  const facts: Fact[] = [
    ['Key', `${k.prefix}…${k.last_four}`],
    ['Scopes', k.scopes.join(', ')],
    ['Rate limit', rateLimitText(k) ?? 'Your account’s limits only'],
    ['Uses', [usesText(k) ?? 'Unlimited', refillText(k)].filter(Boolean).join(', ')],
    ['Created', formatDateTime(k.created_at)],
    ['Last used', formatDateTime(k.last_used_at)],
    ['Expires', isExpired(k) ? `expired ${formatDate(k.expires_at)}` : formatDate(k.expires_at)],
  ];
  if (k.previous_key_expires_at) facts.push(['Old secret', `works until ${formatDateTime(k.previous_key_expires_at)}`]);
  return <Facts items={facts} />;
}

/** `/settings/api-keys/<id>`: one key's limits, its requests over time, Rename and Roll. */
export function ApiKeyPage({ id }: { id: string }) {
  const key = useResource(() => gatehouse.apiKeys.get(id), [id]);
  const [dialog, setDialog] = useState<'rename' | 'roll' | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const k = key.data;
  return (
    <>
      <Link href="/settings/api-keys" class="back-link">
        <Icon name="back" />
        All API keys
      </Link>
      <ErrorAlert error={key.error} />
      {k && (
        <>
          <section class="card" aria-labelledby="key-title">
            <div class="card-head card-head-wrap">
              <h2 id="key-title">{k.name}</h2>
              <div class="actions">
                <button type="button" class="button button-secondary button-small" onClick={() => setDialog('rename')}>
                  <Icon name="edit" />
                  Rename
                </button>
                <button type="button" class="button button-secondary button-small" onClick={() => setDialog('roll')}>
                  <Icon name="refresh" />
                  Roll
                </button>
              </div>
            </div>
            {notice && <Notice>{notice}</Notice>}
            <KeyFacts apiKey={k} />
          </section>
          <section class="card" aria-labelledby="key-usage-title">
            <h2 id="key-usage-title">Requests with this key</h2>
            <UsageChart keyId={k.id} subject="with this key" />
          </section>
          <RenameKeyDialog
            apiKey={dialog === 'rename' ? k : null}
            onCancel={() => setDialog(null)}
            onRenamed={(renamed) => {
              setDialog(null);
              setNotice(`The key is renamed “${renamed.name}”.`);
              key.setData(renamed);
            }}
          />
          <RollKeyDialog
            apiKey={dialog === 'roll' ? k : null}
            onRolled={({ key: _secret, ...rolled }) => key.setData(rolled)}
            onClose={() => setDialog(null)}
          />
        </>
      )}
    </>
  );
}
