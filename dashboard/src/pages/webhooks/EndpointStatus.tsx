import type { WebhookEndpoint } from '../../lib/api.ts';

/** Enabled, or disabled with the reason (the account, or the receiver's 410 Gone). */
export function EndpointStatus({ endpoint }: { endpoint: WebhookEndpoint }) {
  if (endpoint.enabled) return <span class="badge badge-ok">enabled</span>;
  return <span class="badge badge-warn badge-wrap">disabled{endpoint.disabled_reason ? `: ${endpoint.disabled_reason}` : ''}</span>;
}

export const endpointPath = (endpoint: Pick<WebhookEndpoint, 'id'>) => `/webhooks/${encodeURIComponent(endpoint.id)}`;

/** The URL without its scheme, to name the endpoint in headings and labels. */
export const endpointName = (endpoint: Pick<WebhookEndpoint, 'url'>) => endpoint.url.replace(/^https?:\/\//, '');
