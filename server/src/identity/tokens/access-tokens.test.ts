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
      expect(tokens.verifyCached(token)?.sid).toBe('ses_1');

      clock.advance(120_000); // past expiry and the 5 s tolerance
      expect(() => tokens.verifyCached(token)).toThrow(/expired/);
      vi.advanceTimersByTime(EXPIRED_SWEEP_MS);
      expect(tokens.verifyCached(token)).toBeUndefined();
      await expect(tokens.verify(token)).rejects.toMatchObject({ code: 'token_expired' });
    } finally {
      tokens.close();
    }
  });
});
