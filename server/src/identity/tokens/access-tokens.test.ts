import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../kernel/clock.js';
import { createAccessTokens, EXPIRED_SWEEP_MS } from './access-tokens.js';
import type { KeyRing } from './signing-keys.js';

function oneKeyRing(): KeyRing {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    current: () => ({ kid: 'k1', privateKey }),
    publicKey: async (kid) => (kid === 'k1' ? publicKey : undefined),
    jwks: () => ({ keys: [] }),
    rotate: async () => 'k1',
    reload: async () => {},
  };
}

describe('access-token cache', () => {
  afterEach(() => vi.useRealTimers());

  it('drops expired tokens on its sweep: until then a hit says token_expired, after it the cache holds nothing', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const clock = new ManualClock(Date.UTC(2026, 10, 24));
    const tokens = createAccessTokens({ keyRing: oneKeyRing(), clock, issuer: 'https://gatehouse.test', ttlSeconds: 60 });
    try {
      const { token } = await tokens.issue({ userId: 'usr_1', sessionId: 'ses_1', scope: 'usage:read', amr: ['pwd'] });
      expect((await tokens.verify(token)).sub).toBe('usr_1');
      const hit = tokens.verify(token); // verified before: answered at once, from the cache
      expect(hit).not.toBeInstanceOf(Promise);
      expect((hit as Awaited<typeof hit>).sid).toBe('ses_1');

      clock.advance(120_000); // past expiry and the 5 s tolerance
      expect(() => tokens.verify(token)).toThrow(/expired/); // the cached entry says so at once
      vi.advanceTimersByTime(EXPIRED_SWEEP_MS);
      const checked = tokens.verify(token); // the cache holds nothing: a full check
      expect(checked).toBeInstanceOf(Promise);
      await expect(checked).rejects.toMatchObject({ code: 'token_expired' });
    } finally {
      tokens.close();
    }
  });
});
