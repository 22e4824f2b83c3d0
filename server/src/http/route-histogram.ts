import type { Registry } from 'prom-client';

interface Series {
  labels: { method: string; route: string; status_code: number };
  /** Observations per bucket (not cumulative; cumulated when scraped). Last slot: above all bounds. */
  counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * A Prometheus histogram of request durations by method, route template and status, written
 * for the request path: one observation is two Map lookups and a short bucket scan. prom-client's
 * Histogram hashes the label object on every observe, which cost about a microsecond a request.
 * It registers in a prom-client Registry like any metric, so /metrics exposes it unchanged.
 */
export class RouteHistogram {
  /** Per route template, per method, per status. */
  private readonly routes: Map<string, Map<number, Series>>[] = [];
  private readonly recorders = new Map<string, (method: string, status: number, seconds: number) => void>();
  readonly type = 'histogram';
  readonly aggregator = 'sum';

  constructor(readonly name: string, readonly help: string, private readonly buckets: readonly number[], registry: Registry) {
    registry.registerMetric(this as never);
  }

  /**
   * The recorder of one route template; the function it returns is what runs per request. Asked
   * twice for one template, it returns the same recorder, so a series is never split in two.
   */
  forRoute(route: string): (method: string, status: number, seconds: number) => void {
    let recorder = this.recorders.get(route);
    if (recorder === undefined) this.recorders.set(route, (recorder = this.newRecorder(route)));
    return recorder;
  }

  private newRecorder(route: string): (method: string, status: number, seconds: number) => void {
    const byMethod = new Map<string, Map<number, Series>>();
    this.routes.push(byMethod);
    return (method, status, seconds) => {
      let byStatus = byMethod.get(method);
      if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
      let s = byStatus.get(status);
      if (s === undefined) {
        s = { labels: { method, route, status_code: status }, counts: new Float64Array(this.buckets.length + 1), sum: 0, count: 0 };
        byStatus.set(status, s);
      }
      let i = 0;
      while (i < this.buckets.length && seconds > this.buckets[i]!) i++;
      s.counts[i]!++;
      s.sum += seconds;
      s.count++;
    };
  }

  /** The shape prom-client's Registry formats (as its own Histogram returns it). */
  async get() {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const s of this.allSeries()) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += s.counts[i]!;
        values.push({ labels: { le, ...s.labels }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${this.name}_bucket` });
      values.push({ labels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    for (const byMethod of this.routes) byMethod.clear();
  }

  private *allSeries(): Generator<Series> {
    for (const byMethod of this.routes) for (const byStatus of byMethod.values()) yield* byStatus.values();
  }
}
