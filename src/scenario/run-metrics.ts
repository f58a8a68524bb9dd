import type { CallRecord } from './traced-transport.js';
import type { ScenarioEvent } from './scenario-types.js';

/** Counters of one kind per time bucket. */
export type Series = Record<string, number[]>;

/** A sample of money at one instant of service time. */
export interface MoneySample {
  /** Hours of service time since the start. */
  hour: number;
  /** Asset → held in wallets (decimal, as a number for plotting). */
  held: Record<string, number>;
  /** Asset → sent out of the service. */
  sent_out: Record<string, number>;
  /** Asset → fees collected. */
  fees: Record<string, number>;
  /** Agent name → asset → balance, for the first agents. */
  agents: Record<string, Record<string, number>>;
}

/** What the report plots, gathered while the run goes. */
export interface MetricsData {
  /** Start of each bucket, hours of service time since the start. */
  bucket_hours: number[];
  bucket_seconds: number;
  /** Email and SMS counts per bucket. */
  messages: Series;
  /** Event type → count per bucket. */
  events: Series;
  /** Failure kind → count per bucket (API errors by code, failed payments, faults, ...). */
  failures: Series;
  money: MoneySample[];
}

/** Control-plane routes that add a fault rule. */
const FAULT_ROUTES = new Set(['sim.addWalletFailure', 'sim.addFault']);

/** SMS statuses that start a message's life: the send itself. */
const SMS_SENT = new Set(['queued']);

/**
 * Counts calls and events into time buckets of service time, for the report. Only the simulated
 * clock decides where a count goes, so the figures repeat with the seed like the trace does.
 */
export class RunMetrics {
  readonly bucketMs: number;
  private readonly bucketCount: number;
  private readonly data: MetricsData;
  readonly eventTotals = new Map<string, number>();
  readonly errorTotals = new Map<string, number>();
  calls = 0;

  constructor(
    private readonly startMs: number,
    durationMs: number,
    stepMs: number,
  ) {
    this.bucketMs = durationMs >= 4 * 3_600_000 ? 3_600_000 : Math.max(stepMs, Math.ceil(durationMs / 24));
    this.bucketCount = Math.max(1, Math.ceil(durationMs / this.bucketMs));
    this.data = {
      bucket_hours: Array.from({ length: this.bucketCount }, (_, i) => (i * this.bucketMs) / 3_600_000),
      bucket_seconds: this.bucketMs / 1000,
      messages: {},
      events: {},
      failures: {},
      money: [],
    };
  }

  /** Counts one call (errors by code, fault rules the scenario added). */
  call(call: CallRecord, atMs: number): void {
    this.calls += 1;
    if (FAULT_ROUTES.has(call.route) && !call.error) this.bump(this.data.failures, 'fault rule added', atMs);
    if (call.error) {
      const kind = `api ${call.error.code}`;
      this.errorTotals.set(call.error.code, (this.errorTotals.get(call.error.code) ?? 0) + 1);
      this.bump(this.data.failures, kind, atMs);
    }
  }

  /** Counts one service event into its type and, where it is one, a message or a failure. */
  event(event: ScenarioEvent): void {
    const atMs = Date.parse(event.at);
    this.eventTotals.set(event.type, (this.eventTotals.get(event.type) ?? 0) + 1);
    this.bump(this.data.events, event.type, atMs);
    const status = typeof event.data.status === 'string' ? event.data.status : undefined;
    switch (event.type) {
      case 'email.sent':
        this.bump(this.data.messages, 'email sent', atMs);
        break;
      case 'email.received':
        this.bump(this.data.messages, 'email received', atMs);
        break;
      case 'sms.received':
        this.bump(this.data.messages, 'SMS received', atMs);
        break;
      case 'sms.status_changed':
        if (status !== undefined && SMS_SENT.has(status)) this.bump(this.data.messages, 'SMS sent', atMs);
        if (status === 'failed') this.bump(this.data.failures, 'SMS failed', atMs);
        break;
      case 'wallet.transaction.updated':
        if (status === 'failed') this.bump(this.data.failures, 'payment failed', atMs);
        break;
      case 'email.delivery_failed':
        this.bump(this.data.failures, 'email delivery failed', atMs);
        break;
      case 'fault.injected':
        this.bump(this.data.failures, `fault ${typeof event.data.target === 'string' ? event.data.target : 'injected'}`, atMs);
        break;
      default:
        break;
    }
  }

  /** Counts an error a policy let escape. */
  policyError(atMs: number): void {
    this.bump(this.data.failures, 'policy error', atMs);
  }

  /** Counts a broken invariant. */
  invariantBroken(atMs: number): void {
    this.bump(this.data.failures, 'invariant broken', atMs);
  }

  /** Keeps a money sample. */
  money(sample: Omit<MoneySample, 'hour'>, atMs: number): void {
    this.data.money.push({ hour: (atMs - this.startMs) / 3_600_000, ...sample });
  }

  /** Everything gathered. */
  result(): MetricsData {
    return this.data;
  }

  private bump(series: Series, key: string, atMs: number): void {
    // The end instant of the run belongs to the last bucket.
    const index = Math.min(this.bucketCount - 1, Math.max(0, Math.floor((atMs - this.startMs) / this.bucketMs)));
    const counts = (series[key] ??= new Array<number>(this.bucketCount).fill(0));
    counts[index]! += 1;
  }
}
