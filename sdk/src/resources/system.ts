/** Unauthenticated service endpoints: signing keys, OpenID discovery, health, readiness, metrics. */
import type { Call, RequestOptions } from '../core.js';

export function systemResource(call: Call) {
  return {
    /** Public keys to verify access tokens yourself (EdDSA, by `kid`). */
    jwks: (options?: RequestOptions) => call('getJwks', {}, options),
    /** OpenID Connect Discovery metadata: issuer, jwks_uri, algorithms, the tokens' audience. */
    openIdConfiguration: (options?: RequestOptions) => call('getOpenIdConfiguration', {}, options),
    health: (options?: RequestOptions) => call('healthz', {}, options),
    /** Rejects with 503 `service_unavailable` when a dependency is down; not retried by default. */
    ready: (options?: RequestOptions) => call('readyz', {}, { maxRetries: 0, ...options }),
    /** Prometheus text format. */
    metrics: (options?: RequestOptions) => call('metrics', {}, options),
  };
}
