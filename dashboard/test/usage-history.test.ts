import { describe, expect, it } from 'vitest';
import { requestCount, seriesOf, summaryOf, totalsOf, type UsageBucket } from '../src/lib/usage-history.ts';

const bucket = (start: string, ok = 0, rate_limited = 0, unauthorized = 0, forbidden = 0): UsageBucket => ({ start, ok, rate_limited, unauthorized, forbidden });

describe('usage history → chart', () => {
  const data = [bucket('2026-11-22T08:00:00.000Z'), bucket('2026-11-22T09:00:00.000Z', 3, 1), bucket('2026-11-22T10:00:00.000Z', 4, 0, 2, 1)];

  it('adds up each outcome over the buckets', () => {
    expect(totalsOf(data)).toEqual({ ok: 7, rate_limited: 1, unauthorized: 2, forbidden: 1 });
    expect(requestCount(totalsOf(data))).toBe(11);
    expect(requestCount(totalsOf([bucket('2026-11-22T08:00:00.000Z')]))).toBe(0);
  });

  it('gives uPlot the bucket starts in seconds, then one series per outcome in legend order', () => {
    expect(seriesOf(data)).toEqual([
      [Date.parse('2026-11-22T08:00:00Z') / 1000, Date.parse('2026-11-22T09:00:00Z') / 1000, Date.parse('2026-11-22T10:00:00Z') / 1000],
      [0, 3, 4],
      [0, 1, 0],
      [0, 0, 2],
      [0, 0, 1],
    ]);
  });

  it('sums the chart up in one sentence', () => {
    expect(summaryOf('hour', totalsOf(data))).toBe('Requests per hour, last 24 hours: 7 ok, 1 rate limited, 2 unauthorized, 1 forbidden.');
    expect(summaryOf('day', totalsOf([]))).toBe('Requests per day, last 30 days: 0 ok, 0 rate limited, 0 unauthorized, 0 forbidden.');
  });
});
