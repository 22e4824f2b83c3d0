import { describe, expect, it } from 'vitest';
import type { GetContext } from '../context.js';
import { METRICS_TOKEN } from '../stack.js';

/** The public operations outside the account model: health, readiness, metrics, signing keys, OpenID discovery. */
export function operationsJourney(ctx: GetContext): void {
  describe('operations and keys', () => {
    it('answers healthz, readyz, metrics and the JWKS as documented', async () => {
      const { api } = ctx();
      expect((await api.call('healthz', {}, 200)).body).toEqual({ status: 'ok' });
      expect((await api.call('readyz', {}, 200)).body.status).toBe('ok');
      // On the public port only to the bearer of METRICS_TOKEN (set for this server: stack.ts).
      expect((await api.call('metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }, 200)).body).toMatch(/^# HELP /m);
      expect((await api.call('metrics', {}, 401)).body).toMatchObject({ code: 'authentication_required' });
      const jwks = await api.call('getJwks', {}, 200);
      expect(jwks.body.keys.length).toBeGreaterThan(0);
      expect(jwks.body.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });
      const discovery = await api.call('getOpenIdConfiguration', {}, 200);
      expect(discovery.body).toMatchObject({ id_token_signing_alg_values_supported: ['EdDSA'] });
      expect(discovery.body.jwks_uri).toBe(`${discovery.body.issuer}/.well-known/jwks.json`);
    });
  });
}
