// Metrics kept in plain numbers on the hot path and handed to prom-client's registry, which
// formats them like its own, only when /metrics is scraped.
import type { Registry } from 'prom-client';
import type { CompletedRequest } from './request-telemetry.js';

/** The `route` label of a request that matched nothing (bounded: never the request's own path). */
const UNMATCHED = 'unmatched';

/** One (method, route) pair's latency histogram and its counts by status. */
interface RouteSeries {
  method: string;
  route: string;
  /** Observations per bucket (not cumulative; the last is +Inf). */
  buckets: number[];
  sum: number;
  count: number;
  byStatus: Map<number, number>;
}

/** What prom-client's registry reads from a metric (its `get()`), duck-typed. */
interface MetricValues {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: Array<{ labels: Record<string, string | number>; value: number; metricName?: string }>;
}

/** Requests kept before they are counted, when no scrape counts them first. */
const WAITING_REQUESTS = 256;

/**
 * Request counts by method, route and status, and latency histograms by method and route,
 * accumulated in plain numbers and turned into prom-client metric values only when scraped.
 * prom-client's own counter and histogram hash their labels on every `inc` and `observe` (about
 * 0.8 µs a request together, measured). Here a request is kept as it completed (an array push on
 * its path) and counted later with others, in one loop, before a scrape reads the counts or once
 * {@link WAITING_REQUESTS} wait: a series is found by its route's template (the same string for
 * every request of a route) and method, without a key made per request. The text exposition is
 * still prom-client's (the registry formats these values like its own).
 */
export class RequestMetrics {
  /** Series by route (null: unmatched), then by method. */
  private readonly series = new Map<string | null, Map<string, RouteSeries>>();
  private waiting: CompletedRequest[] = [];

  constructor(
    registry: Registry,
    private readonly bounds: readonly number[],
    names: { requests: string; latency: string },
  ) {
    registry.registerMetric(this.metric(names.requests, 'HTTP requests answered, by method, route template and status', () => this.counts(names.requests)));
    registry.registerMetric(this.metric(names.latency, "Time from a request's arrival until its answer was written, by method and route template", () => this.histograms(names.latency)));
  }

  /** Counts and times one completed request (at the latest when the metrics are next read). */
  record(request: CompletedRequest): void {
    if (this.waiting.push(request) >= WAITING_REQUESTS) this.count();
  }

  /** Counts the requests waiting. */
  private count(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const request of waiting) {
      let byMethod = this.series.get(request.route);
      if (!byMethod) this.series.set(request.route, (byMethod = new Map()));
      let series = byMethod.get(request.method);
      if (!series) {
        series = { method: request.method, route: request.route ?? UNMATCHED, buckets: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0, byStatus: new Map() };
        byMethod.set(request.method, series);
      }
      const seconds = request.ms / 1000;
      let bucket = 0;
      while (bucket < this.bounds.length && seconds > this.bounds[bucket]!) bucket++;
      series.buckets[bucket]!++;
      series.sum += seconds;
      series.count++;
      series.byStatus.set(request.status, (series.byStatus.get(request.status) ?? 0) + 1);
    }
  }

  /** Every series, after counting the requests waiting. */
  private allSeries(): RouteSeries[] {
    this.count();
    return [...this.series.values()].flatMap((byMethod) => [...byMethod.values()]);
  }

  private metric(name: string, help: string, values: () => MetricValues['values']): never {
    const type = name.endsWith('_total') ? 'counter' : 'histogram';
    return { name, help, type, aggregator: 'sum', get: async (): Promise<MetricValues> => ({ name, help, type, aggregator: 'sum', values: values() }) } as never;
  }

  private counts(name: string): MetricValues['values'] {
    const values: MetricValues['values'] = [];
    for (const series of this.allSeries()) {
      for (const [status, count] of series.byStatus) values.push({ labels: { method: series.method, route: series.route, status }, value: count, metricName: name });
    }
    return values;
  }

  private histograms(name: string): MetricValues['values'] {
    const values: MetricValues['values'] = [];
    for (const series of this.allSeries()) {
      const labels = { method: series.method, route: series.route };
      let cumulative = 0;
      this.bounds.forEach((bound, index) => {
        cumulative += series.buckets[index]!;
        values.push({ labels: { ...labels, le: bound }, value: cumulative, metricName: `${name}_bucket` });
      });
      values.push({ labels: { ...labels, le: '+Inf' }, value: series.count, metricName: `${name}_bucket` });
      values.push({ labels, value: series.sum, metricName: `${name}_sum` });
      values.push({ labels, value: series.count, metricName: `${name}_count` });
    }
    return values;
  }
}

/**
 * A histogram without labels kept in plain numbers and handed to prom-client's registry when
 * scraped (as {@link RequestMetrics}): an observation costs a few additions, not prom-client's
 * label hashing. For values observed on hot paths (every store transaction).
 */
export class PlainHistogram {
  private readonly buckets: number[];
  private sum = 0;
  private count = 0;

  constructor(
    registry: Registry,
    name: string,
    help: string,
    private readonly bounds: readonly number[],
  ) {
    this.buckets = new Array<number>(bounds.length + 1).fill(0);
    const values = (): MetricValues['values'] => {
      const out: MetricValues['values'] = [];
      let cumulative = 0;
      this.bounds.forEach((bound, index) => {
        cumulative += this.buckets[index]!;
        out.push({ labels: { le: bound }, value: cumulative, metricName: `${name}_bucket` });
      });
      out.push({ labels: { le: '+Inf' }, value: this.count, metricName: `${name}_bucket` });
      out.push({ labels: {}, value: this.sum, metricName: `${name}_sum` });
      out.push({ labels: {}, value: this.count, metricName: `${name}_count` });
      return out;
    };
    registry.registerMetric({ name, help, type: 'histogram', aggregator: 'sum', get: async (): Promise<MetricValues> => ({ name, help, type: 'histogram', aggregator: 'sum', values: values() }) } as never);
  }

  /** Counts one value. */
  observe(value: number): void {
    let bucket = 0;
    while (bucket < this.bounds.length && value > this.bounds[bucket]!) bucket++;
    this.buckets[bucket]!++;
    this.sum += value;
    this.count++;
  }
}

/** One series of a {@link PlainCounter}: its labels and its count. */
interface CounterSeries<L extends string> {
  labels: Record<L, string>;
  value: number;
}

/**
 * A counter with labels kept in plain numbers, handed to prom-client's registry when scraped (as
 * {@link RequestMetrics}): an increment walks one map per label, by the label values as given, so
 * it makes no key and no labels object (only a new series does).
 */
export class PlainCounter<L extends string> {
  /** Maps nested one level per label name; the last level holds the series. */
  private readonly root = new Map<string, unknown>();
  private readonly series: Array<CounterSeries<L>> = [];

  constructor(
    registry: Registry,
    name: string,
    help: string,
    private readonly labelNames: readonly L[],
    /** Called, and awaited, before the counts are read (whoever feeds the counter in groups counts what waits). */
    before: () => void | Promise<void> = () => {},
  ) {
    const values = async (): Promise<MetricValues['values']> => {
      await before();
      return this.series.map(({ labels, value }) => ({ labels, value, metricName: name }));
    };
    registry.registerMetric({ name, help, type: 'counter', aggregator: 'sum', get: async (): Promise<MetricValues> => ({ name, help, type: 'counter', aggregator: 'sum', values: await values() }) } as never);
  }

  /** Adds one to the series of these label values, given in the order of the label names. */
  inc(...values: string[]): void {
    const last = this.labelNames.length - 1;
    let level = this.root;
    for (let index = 0; index < last; index++) {
      let next = level.get(values[index]!) as Map<string, unknown> | undefined;
      if (!next) level.set(values[index]!, (next = new Map()));
      level = next;
    }
    const found = level.get(values[last]!) as CounterSeries<L> | undefined;
    if (found) {
      found.value++;
      return;
    }
    const labels = {} as Record<L, string>;
    this.labelNames.forEach((labelName, index) => (labels[labelName] = values[index]!));
    const series = { labels, value: 1 };
    level.set(values[last]!, series);
    this.series.push(series);
  }
}
