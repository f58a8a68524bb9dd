import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { ServiceEvent } from '../core/ports/event-log.js';
import { OUTBOUND_ATTEMPT_JOB } from '../core/email/outbound.js';
import { DELIVERY_JOB } from '../core/webhooks/webhook-types.js';
import { findTransaction } from '../core/wallet/ledger.js';
import type { Runtime } from '../runtime/create-runtime.js';
import { PlainCounter, PlainHistogram, RequestMetrics } from './plain-metrics.js';
import type { CompletedRequest, RequestSink } from './request-telemetry.js';

/** Pending transfers whose rail and direction are kept for their settlement's count (the newest). */
const PENDING_KEPT = 10_000;

/** Events kept before they are counted, when no scrape counts them first. */
const WAITING_EVENTS = 256;

/** Latency buckets of requests and store transactions, in seconds: 0.5 ms to 10 s. */
const SECONDS_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The service's Prometheus metrics (DECISIONS.md, "Operating a live service"), on a registry of
 * their own, written with prom-client (the Prometheus client every Node service uses: the text
 * format, histograms and process metrics need nothing hand-made):
 *
 * - `agent_services_http_requests_total{method,route,status}` and
 *   `agent_services_http_request_duration_seconds{method,route}`: every request the server
 *   answered, by its route's path template;
 * - `agent_services_jobs_due`, `agent_services_jobs_scheduled{type}`, `agent_services_mail_queued`
 *   (mail waiting for an attempt) and `agent_services_webhook_deliveries_pending` (deliveries
 *   waiting for a retry), read from the store when scraped;
 * - `agent_services_sandbox_runs_total{runtime,exit}`, `agent_services_browser_sessions_open`,
 *   `agent_services_transfers_total{rail,status}`, from the event log as changes commit (counted in
 *   groups, and before every read);
 * - `agent_services_store_commit_seconds`: each store transaction until it is durable;
 * - prom-client's process and Node.js metrics (`process_cpu_seconds_total`,
 *   `nodejs_eventloop_lag_seconds`, heap, handles...).
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests: RequestMetrics;
  private readonly runs: PlainCounter<'runtime' | 'exit'>;
  private readonly sessions: Gauge;
  private readonly transfers: PlainCounter<'rail' | 'direction' | 'status'>;
  /** Rail and direction of history records still pending, by agent and transaction id (their settling event repeats neither). */
  private readonly pendingRails = new Map<string, { rail: string; direction: string }>();
  private unsubscribe: (() => void) | undefined;
  /** Events committed and not yet counted: counted in groups, like requests, and before any read. */
  private events: ServiceEvent[] = [];
  /** Settlements of transfers this process did not see created, counted once their record is read. */
  private readonly lookups = new Set<Promise<void>>();

  constructor(private readonly runtime: Runtime) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requests = new RequestMetrics(this.registry, SECONDS_BUCKETS, { requests: 'agent_services_http_requests_total', latency: 'agent_services_http_request_duration_seconds' });
    const jobs = (): Promise<{ due: number; byType: Record<string, number> }> => runtime.scheduledJobs();
    new Gauge({
      name: 'agent_services_jobs_due',
      help: 'Scheduled jobs whose time has come (service time) and that have not run yet',
      registers,
      async collect() {
        this.set((await jobs()).due);
      },
    });
    new Gauge({
      name: 'agent_services_jobs_scheduled',
      help: 'Scheduled jobs waiting, by type',
      labelNames: ['type'],
      registers,
      async collect() {
        this.reset();
        for (const [type, count] of Object.entries((await jobs()).byType)) this.set({ type }, count);
      },
    });
    new Gauge({
      name: 'agent_services_mail_queued',
      help: 'Outbound messages waiting for a delivery attempt to outside addresses',
      registers,
      async collect() {
        this.set((await jobs()).byType[OUTBOUND_ATTEMPT_JOB.type] ?? 0);
      },
    });
    new Gauge({
      name: 'agent_services_webhook_deliveries_pending',
      help: 'Webhook deliveries waiting for an attempt',
      registers,
      async collect() {
        this.set((await jobs()).byType[DELIVERY_JOB.type] ?? 0);
      },
    });
    const settle = async () => {
      this.countEvents();
      await Promise.all(this.lookups);
    };
    this.runs = new PlainCounter(this.registry, 'agent_services_sandbox_runs_total', 'Compute runs finished, by runtime and exit code', ['runtime', 'exit'], settle);
    this.sessions = new Gauge({ name: 'agent_services_browser_sessions_open', help: 'Browser sessions open in this process', registers, collect: settle });
    this.transfers = new PlainCounter(
      this.registry,
      'agent_services_transfers_total',
      'Wallet history records reaching a status (pending, confirmed, failed), by rail (a chain, a bank scheme: iban or aba, or internal: book transfers, card charges, funding) and direction (a book transfer is one of each)',
      ['rail', 'direction', 'status'],
      settle,
    );
    const commits = new PlainHistogram(this.registry, 'agent_services_store_commit_seconds', 'Time of each store transaction from its start until it is durable (its commit included)', SECONDS_BUCKETS);
    runtime.observeTransactions((ms) => commits.observe(ms / 1000));
    // Each process counts what it committed: summed over the processes of one world, every
    // transfer counts once.
    this.unsubscribe = runtime.sim.subscribe(
      (event) => {
        if (this.events.push(event) >= WAITING_EVENTS) this.countEvents();
      },
      { committedHere: true },
    );
  }

  /** The request sink that counts and times every answered request. */
  readonly sink: RequestSink = (request: CompletedRequest) => this.requests.record(request);

  /** The Prometheus text exposition and its content type. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  /** Stops following the event log (what it has seen stays counted). */
  close(): void {
    this.countEvents();
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /** Counts the events waiting, in the order they were committed. */
  private countEvents(): void {
    const events = this.events;
    this.events = [];
    for (const event of events) this.onEvent(event);
  }

  private onEvent(event: ServiceEvent): void {
    const data = event.data as Record<string, unknown>;
    if (event.type === 'compute.run.completed') this.runs.inc(String(data.runtime), String(data.exit_code));
    else if (event.type === 'browser.session.created') this.sessions.inc();
    else if (event.type === 'browser.session.terminated') this.sessions.dec();
    else if (event.type === 'wallet.transaction.created') {
      const rail = railOf(data);
      const direction = String(data.direction);
      this.transfers.inc(rail, direction, String(data.status));
      if (data.status === 'pending') {
        // A transfer settled by another process never comes back here: the oldest go past a bound.
        if (this.pendingRails.size >= PENDING_KEPT) this.pendingRails.delete(this.pendingRails.keys().next().value as string);
        this.pendingRails.set(`${event.agent_id} ${String(data.transaction_id)}`, { rail, direction });
      }
    } else if (event.type === 'wallet.transaction.updated') {
      const key = `${event.agent_id} ${String(data.transaction_id)}`;
      const labels = this.pendingRails.get(key);
      this.pendingRails.delete(key);
      if (labels) this.transfers.inc(labels.rail, labels.direction, String(data.status));
      else this.countFromHistory(event.agent_id, String(data.transaction_id), String(data.status));
    }
  }

  /**
   * Counts the settlement of a record that was pending before this process started, or that
   * another process created (its event was counted there): its rail and direction come from the
   * record itself, read once (`unknown` only if it is gone).
   */
  private countFromHistory(agentId: string | null, transactionId: string, status: string): void {
    const reading = agentId === null ? Promise.resolve(undefined) : findTransaction(this.runtime.view, agentId, transactionId);
    const counted: Promise<void> = reading
      .then(
        (record) => (record ? { rail: railOf(record as unknown as Record<string, unknown>), direction: record.direction } : UNKNOWN),
        () => UNKNOWN,
      )
      .then(({ rail, direction }) => {
        this.transfers.inc(rail, direction, status);
        this.lookups.delete(counted);
      });
    this.lookups.add(counted);
  }
}

const UNKNOWN = { rail: 'unknown', direction: 'unknown' };

/** The rail of a history record's event: its chain, its bank scheme, or internal. */
function railOf(data: Record<string, unknown>): string {
  if (typeof data.network === 'string') return data.network;
  const to = typeof data.to === 'string' ? data.to : '';
  if (to.startsWith('iban:')) return 'iban';
  if (to.startsWith('aba:')) return 'aba';
  return 'internal';
}
