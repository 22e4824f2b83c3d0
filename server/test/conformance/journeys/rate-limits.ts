import { describe, expect, it } from 'vitest';
import type { Answer } from '../contract-client.js';
import { signUp, type GetContext } from '../context.js';

const FREE_PER_MINUTE = 100;

/** A free account spends its minute budget through the proxy, and gets the documented 429. */
export function rateLimitJourney(ctx: GetContext): void {
  describe('rate limits', () => {
    it(`answers 429 rate_limited once a free account has spent its ${FREE_PER_MINUTE} requests`, async () => {
      const actor = await signUp(ctx().api, 'free');
      let limited: Answer | undefined;
      // The budget refills while we spend it (GCRA), so a few more than the limit may pass.
      for (let i = 0; i < FREE_PER_MINUTE + 20 && !limited; i++) {
        const answer = await actor.api.call('listAgents', { token: actor.access }, [200, 429]);
        if (answer.status === 429) limited = answer;
      }
      expect(limited, `no 429 within ${FREE_PER_MINUTE + 20} requests`).toBeDefined();
      expect(limited!.body).toMatchObject({ code: 'rate_limited', window: 'minute' });
      expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited!.headers.get('ratelimit-policy')).toMatch(/"minute";q=100;w=60/);
    });
  });
}
