import type { ApiKey } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { rateLimitText, refillText, usesText } from '../../lib/key-limits.ts';

/** A key's own limits and uses left, in a table cell. */
export function ApiKeyLimits({ apiKey }: { apiKey: ApiKey }) {
  const rate = rateLimitText(apiKey);
  const uses = usesText(apiKey);
  const refill = refillText(apiKey);
  return (
    <span class="key-limits">
      <span>{rate ?? 'Account limits'}</span>
      <span>
        {uses ? (
          <span class={`badge ${apiKey.remaining === 0 ? 'badge-warn' : 'badge-info'}`}>{uses}</span>
        ) : (
          'Unlimited uses'
        )}
        {refill && <span class="hint"> {refill}</span>}
      </span>
    </span>
  );
}

/** "Old secret works until …" while a rolled key's previous secret is still accepted. */
export function PreviousSecretNote({ apiKey }: { apiKey: ApiKey }) {
  if (!apiKey.previous_key_expires_at || new Date(apiKey.previous_key_expires_at).getTime() <= Date.now()) return null;
  return <span class="badge badge-warn badge-wrap">old secret works until {formatDateTime(apiKey.previous_key_expires_at)}</span>;
}
