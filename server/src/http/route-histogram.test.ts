import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RouteHistogram } from './route-histogram.js';

describe('RouteHistogram', () => {
  it('exposes exactly what prom-client\'s own Histogram exposes for the same observations', async () => {
    const buckets = [0.001, 0.01, 0.1, 1];
    const ours = new Registry();
    const theirs = new Registry();
    const histogram = new RouteHistogram('http_request_duration_seconds', 'durations', buckets, ours);
    const reference = new Histogram({ name: 'http_request_duration_seconds', help: 'durations', labelNames: ['method', 'route', 'status_code'], buckets, registers: [theirs] });
    const observations: [string, string, number, number][] = [
      ['GET', '/v1/users/me', 200, 0.0004], ['GET', '/v1/users/me', 200, 0.02], ['GET', '/v1/users/me', 401, 3],
      ['POST', '/v1/agents', 201, 0.01], ['GET', '/v1/agents', 200, 0.5], ['HEAD', '/v1/agents', 200, 0.001],
    ];
    const recorders = new Map<string, ReturnType<RouteHistogram['forRoute']>>();
    for (const [method, route, status, seconds] of observations) {
      if (!recorders.has(route)) recorders.set(route, histogram.forRoute(route));
      recorders.get(route)!(method, status, seconds);
      reference.observe({ method, route, status_code: status }, seconds);
    }
    const lines = async (r: Registry) => (await r.metrics()).split('\n').filter(Boolean).sort();
    expect(await lines(ours)).toEqual(await lines(theirs));
    histogram.reset();
    expect(await ours.metrics()).not.toContain('_count{');
  });
});
