import { describe, expect, it } from 'vitest';
import { limitsBody, NO_LIMITS, rateLimitText, refillText, usesText } from '../src/lib/key-limits.ts';

describe('key limits', () => {
  it('sends nothing when every box is empty', () => {
    expect(limitsBody(NO_LIMITS)).toEqual({ body: {}, errors: {} });
  });

  it('turns the boxes into the body of the create call', () => {
    expect(limitsBody({ perMinute: '5', perDay: '', uses: ' 3 ', refillAmount: '100', refillInterval: 'day' })).toEqual({
      body: { rate_limit: { per_minute: 5, per_day: null }, remaining: 3, refill: { amount: 100, interval: 'day' } },
      errors: {},
    });
  });

  it('refuses what the server would (not whole, below 1, above its maximum)', () => {
    const { errors } = limitsBody({ perMinute: '1.5', perDay: '0', uses: '-2', refillAmount: '2000000000', refillInterval: 'month' });
    expect(Object.keys(errors).sort()).toEqual(['per_day', 'per_minute', 'refill', 'remaining']);
    expect(limitsBody({ ...NO_LIMITS, perMinute: '1000001' }).errors.per_minute).toMatch(/1 to 1,000,000/);
  });

  it('describes a key’s limits', () => {
    expect(rateLimitText({ rate_limit: { per_minute: 5, per_day: 1000 } })).toBe('5 per minute · 1,000 per day');
    expect(rateLimitText({ rate_limit: { per_minute: null, per_day: 20 } })).toBe('20 per day');
    expect(rateLimitText({ rate_limit: null })).toBeNull();
    expect(usesText({ remaining: 1 })).toBe('1 use left');
    expect(usesText({ remaining: 0 })).toBe('0 uses left');
    expect(usesText({ remaining: null })).toBeNull();
    expect(refillText({ refill: { amount: 100, interval: 'month' } })).toBe('refilled to 100 on the 1st of each month (UTC)');
  });
});
