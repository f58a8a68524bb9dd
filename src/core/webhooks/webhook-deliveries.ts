import { filteredPage } from '../services/filtered-page.js';
import { inject, injectable } from '../shared/di.js';
import { Clock } from '../ports/clock.js';
import type { AppendedEvent } from '../ports/event-log.js';
import { HttpClient } from '../ports/http-client.js';
import { Faults } from '../ports/faults.js';
import { Random } from '../ports/random.js';
import { Store, type StoreTransaction } from '../ports/store.js';
import { decodeCursor, encodeCursor } from '../shared/cursor.js';
import { Scheduler, type JobData } from '../services/scheduler.js';
import { toIso } from '../shared/time.js';
import { WebhookConfig } from './webhook-config.js';
import { WebhookPayloads, mayDeliver } from './webhook-payloads.js';
import { WebhookService, type Endpoint } from './webhook.service.js';
import { signatureHeader } from './signature.js';
import { UrlGuard } from './url-guard.js';
import { DELIVERY_JOB, MAX_ATTEMPTS, RETRY_OFFSETS_SECONDS, WEBHOOK_EVENT_TYPES } from './webhook-types.js';
import type { DeliveriesQuery, DeliveryList, DeliveryStatus, WebhookDelivery } from './webhooks.schema.js';

/** One delivery per (event, endpoint), in one partition: the control plane lists them all. */
export const DELIVERIES = 'webhook_deliveries';
/** The exact body of each delivered event, kept so every retry sends the same bytes. */
export const WEBHOOK_EVENTS = 'webhook_events';
const ALL = 'all';
/** Expired deliveries each new one removes at most, so retention costs O(1) per delivery. */
const SWEEP_PER_DELIVERY = 2;

/** Event-log types that can become a delivery (the delivered types, and new wallet records). */
const RELEVANT = new Set<string>([...WEBHOOK_EVENT_TYPES, 'wallet.transaction.created']);

/** A delivery as stored. */
export interface StoredDelivery extends WebhookDelivery {
  /** Service time of the first attempt: retries are counted from it. */
  first_attempt_ms: number;
  /** The job of the next attempt (or of the final check after the last one); null once settled. */
  job_id: string | null;
}

interface StoredWebhookEvent {
  event_id: string;
  body: string;
}

/**
 * Delivers events to webhook endpoints, at least once, signed, with retries on the clock.
 *
 * Durability: deliveries are written by an event-log hook inside the transaction that appends
 * the event, together with the job of their next attempt, so a crash can lose neither. Every
 * attempt is "claimed" in a transaction that first schedules its successor (the next retry, or
 * after the last attempt a final check): an attempt cut off by a crash is followed by its retry.
 * The POST itself happens after the transaction commits, through the HttpClient port, and its
 * outcome is written in a transaction of its own; a stale outcome never overwrites a newer one.
 *
 * Time: the first attempt starts as soon as the event commits and runs in the background (the
 * request or clock step that caused the event does not wait for receivers). Retries are jobs of
 * the clock: on the simulated clock, advancing past a retry runs it and waits for its outcome, so
 * `POST /_sim/clock/advance` answers with every due retry recorded. Each attempt waits at most the
 * delivery timeout (10 s of real time by default), so a receiver that hangs delays an advance by
 * at most that per due attempt and never stops the clock.
 */
@injectable()
export class WebhookDeliveries {
  /** Bumped by restores and stop: outcomes of attempts started before are dropped. */
  private generation = 0;
  /** Attempts under way, by delivery: a retry that falls due meanwhile waits for it instead of posting the event again. */
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Attempts holding a slot, and those waiting for one (FIFO). */
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    @inject(Random) private readonly random: Random,
    @inject(Scheduler) private readonly scheduler: Scheduler,
    @inject(HttpClient) private readonly http: HttpClient,
    @inject(WebhookConfig) private readonly config: WebhookConfig,
    @inject(WebhookService) private readonly webhooks: WebhookService,
    @inject(WebhookPayloads) private readonly payloads: WebhookPayloads,
    @inject(UrlGuard) private readonly guard: UrlGuard,
    @inject(Faults) private readonly faults: Faults,
  ) {}

  /**
   * The event-log hook: inside the appending transaction, writes one delivery per interested
   * endpoint with its first attempt claimed and its first retry scheduled; the first attempt
   * starts once the transaction commits.
   */
  enqueue(tx: StoreTransaction, event: AppendedEvent): Promise<void> | undefined {
    // Most events concern agents without endpoints: nothing to build for them, and no async frame
    // to build it in (every send appends two events).
    if (!RELEVANT.has(event.type) || !mayDeliver(event)) return undefined;
    const any = this.webhooks.anyFor(tx, event.agent_id);
    if (typeof any === 'boolean') return any ? this.build(tx, event) : undefined;
    return any.then((endpoints) => (endpoints > 0 ? this.build(tx, event) : undefined));
  }

  /** Stores the event's webhook body and a delivery per endpoint that takes it (none when no endpoint does). */
  private async build(tx: StoreTransaction, event: AppendedEvent): Promise<void> {
    const payload = await this.payloads.payloadOf(tx, event);
    if (!payload) return;
    const endpoints = await this.webhooks.endpointsFor(tx, event.agent_id, payload.type);
    if (endpoints.length === 0) return;
    const now = this.clock.now();
    if (this.config.retentionMs !== null) await this.sweep(tx, now - this.config.retentionMs);
    const eventId = this.random.id('event');
    const body = JSON.stringify({ id: eventId, type: payload.type, created_at: event.at, agent_id: event.agent_id, data: payload.data });
    await tx.insert<StoredWebhookEvent>(WEBHOOK_EVENTS, eventId, { event_id: eventId, body });
    const started: string[] = [];
    for (const endpoint of endpoints) {
      const deliveryId = this.random.id('delivery');
      const retryAt = now + RETRY_OFFSETS_SECONDS[0] * 1000;
      const jobId = await this.scheduler.schedule(tx, retryAt, DELIVERY_JOB, { delivery_id: deliveryId, attempt: 2 });
      const delivery: StoredDelivery = {
        delivery_id: deliveryId,
        webhook_id: endpoint.webhook_id,
        event_id: eventId,
        type: payload.type,
        url: endpoint.url,
        attempts: 1,
        status: 'pending',
        last_response_status: null,
        next_attempt_at: toIso(retryAt),
        first_attempt_ms: now,
        job_id: jobId,
      };
      await tx.insert(DELIVERIES, deliveryId, delivery, ALL);
      started.push(deliveryId);
    }
    const generation = this.generation;
    tx.afterCommit(() => {
      // Nobody awaits a first attempt: a failure to record its outcome (the store closing under
      // it) must not become an unhandled rejection; the stored retry covers the attempt anyway.
      for (const deliveryId of started)
        this.track(
          deliveryId,
          this.alone(deliveryId, () => this.attempt(deliveryId, 1, generation)),
        ).catch(() => undefined);
    });
  }

  /** Runs a delivery job: claims attempt `attempt` (or settles a delivery whose attempts ran out) and makes it. */
  async run({ delivery_id: deliveryId, attempt }: JobData<typeof DELIVERY_JOB>): Promise<void> {
    await this.inFlight.get(deliveryId)?.catch(() => undefined);
    const generation = this.generation;
    const claimed = await this.alone(deliveryId, () => this.store.transaction((tx) => this.claim(tx, deliveryId, attempt)));
    // The POST waits for the claim (and the job's removal) to be durable: it never holds the
    // job's unit open, and a failed commit never follows it. The job's run still waits for it.
    if (claimed)
      await this.store.outside(() =>
        this.track(
          deliveryId,
          this.alone(deliveryId, () => this.attempt(deliveryId, attempt, generation)),
        ),
      );
  }

  /**
   * Runs `work` as the only attempt work on `deliveryId` in the world. In one process the
   * in-flight map already orders a retry after the attempt under way; on a store other processes
   * serve, a retry that falls due on another process (its clock advanced past it) would post the
   * event while the first attempt still waits for its answer, so both take the delivery's claim,
   * held for one attempt at most (bounded by the delivery timeout) and freed if the holder dies.
   */
  private async alone<T>(deliveryId: string, work: () => Promise<T>): Promise<T> {
    const shared = this.store.shared;
    if (!shared) return work();
    const release = await shared.awaitClaim(`webhook-delivery:${deliveryId}`);
    try {
      return await work();
    } finally {
      await release();
    }
  }

  /** Remembers `work` as the attempt under way for `deliveryId` until it settles. */
  private track(deliveryId: string, work: Promise<void>): Promise<void> {
    const settled = work.finally(() => {
      if (this.inFlight.get(deliveryId) === settled) this.inFlight.delete(deliveryId);
    });
    this.inFlight.set(deliveryId, settled);
    return settled;
  }

  /**
   * A newest-first page of deliveries, optionally of one endpoint or status.
   * @throws ApiError 400 invalid_request (a cursor of another list)
   */
  async list(query: DeliveriesQuery): Promise<DeliveryList> {
    const listName = `webhooks.deliveries|${query.webhook_id ?? ''}|${query.status ?? ''}`;
    const before = query.cursor === undefined ? undefined : decodeCursor(listName, query.cursor);
    const page = await filteredPage<StoredDelivery>(
      this.store.view,
      DELIVERIES,
      { partition: ALL, limit: query.limit, ...(before === undefined ? {} : { before }) },
      (delivery) => (query.webhook_id === undefined || delivery.webhook_id === query.webhook_id) && (query.status === undefined || delivery.status === query.status),
    );
    const last = page.items[page.items.length - 1];
    return { deliveries: page.items.map((item) => toWire(item.record)), next_cursor: page.hasMore && last ? encodeCursor(listName, last.position) : null };
  }

  /**
   * Removes the oldest deliveries that are settled and were first attempted before `cutoffMs`,
   * and the body of an event once its last delivery is gone (the deliveries of one event are
   * written together, so they are neighbours in the list). A pending delivery stops the sweep
   * until it settles: its retries (the last a day after the first attempt) still need it.
   */
  private async sweep(tx: StoreTransaction, cutoffMs: number): Promise<void> {
    const oldest = (await tx.page<StoredDelivery>(DELIVERIES, { partition: ALL, order: 'oldest', limit: SWEEP_PER_DELIVERY + 1 })).items;
    for (let i = 0; i < Math.min(SWEEP_PER_DELIVERY, oldest.length); i++) {
      const delivery = oldest[i]!.record;
      if (delivery.status === 'pending' || delivery.first_attempt_ms >= cutoffMs) return;
      await tx.remove(DELIVERIES, delivery.delivery_id);
      if (oldest[i + 1]?.record.event_id !== delivery.event_id) await tx.remove(WEBHOOK_EVENTS, delivery.event_id);
    }
  }

  /** Drops what attempts started before a restore would write: the restored world has its own deliveries. */
  restored(): void {
    this.generation++;
  }

  /** Stops recording outcomes (the runtime is closing); attempts in flight end by their timeout. */
  stop(): void {
    this.generation++;
  }

  /** Claims attempt `attempt` in `tx`: schedules its successor first, so a crash mid-attempt still leads to a retry. */
  private async claim(tx: StoreTransaction, deliveryId: string, attempt: number): Promise<boolean> {
    const delivery = await tx.get<StoredDelivery>(DELIVERIES, deliveryId);
    if (!delivery || delivery.status !== 'pending' || delivery.attempts !== attempt - 1) return false;
    if (attempt > MAX_ATTEMPTS || !(await this.webhooks.endpoint(tx, delivery.webhook_id))) {
      // Out of attempts (the last one never reported back), or the endpoint is gone.
      await tx.update<StoredDelivery>(DELIVERIES, deliveryId, { ...delivery, status: 'failed', next_attempt_at: null, job_id: null });
      return false;
    }
    const successorAt = attempt < MAX_ATTEMPTS ? delivery.first_attempt_ms + RETRY_OFFSETS_SECONDS[attempt - 1]! * 1000 : this.clock.now() + this.config.timeoutMs + RETRY_OFFSETS_SECONDS[0] * 1000;
    const jobId = await this.scheduler.schedule(tx, successorAt, DELIVERY_JOB, { delivery_id: deliveryId, attempt: attempt + 1 });
    await tx.update<StoredDelivery>(DELIVERIES, deliveryId, {
      ...delivery,
      attempts: attempt,
      next_attempt_at: attempt < MAX_ATTEMPTS ? toIso(successorAt) : null,
      job_id: jobId,
    });
    return true;
  }

  /** Makes one attempt outside any transaction, then records its outcome. */
  private async attempt(deliveryId: string, attempt: number, generation: number): Promise<void> {
    if (generation !== this.generation) return;
    const delivery = await this.store.view.get<StoredDelivery>(DELIVERIES, deliveryId);
    // A later attempt was claimed first (on another process): it made the POST this one would.
    if (!delivery || delivery.status !== 'pending' || delivery.attempts !== attempt) return;
    const [endpoint, event] = await Promise.all([this.webhooks.endpoint(this.store.view, delivery.webhook_id), this.store.view.get<StoredWebhookEvent>(WEBHOOK_EVENTS, delivery.event_id)]);
    if (!endpoint || !event) return;
    const status = await this.post(endpoint, event.body, attempt, delivery);
    if (generation !== this.generation) return;
    await this.store.transaction((tx) => this.record(tx, deliveryId, attempt, status));
  }

  /** Runs `work` once fewer than `concurrency` attempts are in flight; a finished attempt hands its slot on. */
  private async withSlot<T>(work: () => Promise<T>): Promise<T> {
    if (this.active < this.config.concurrency) this.active++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }

  /**
   * POSTs one signed delivery; answers the HTTP status, or null when no answer came. A
   * `webhook.deliver` fault stands in for the receiver: `fail` answers its status (500 unless the
   * fault says otherwise), `drop` never answers (a timeout), `delay` answers after
   * `delay_seconds`, which past the delivery timeout is a timeout too.
   */
  private async post(endpoint: Endpoint, body: string, attempt: number, delivery: StoredDelivery): Promise<number | null> {
    const struck = await this.faults.strikeNow('webhook.deliver', {
      agent_id: endpoint.owner,
      fields: { delivery_id: delivery.delivery_id, webhook_id: delivery.webhook_id, event_id: delivery.event_id, type: delivery.type, url: endpoint.url, attempt },
    });
    if (struck?.effect === 'fail') return Number(struck.error_code ?? '500');
    if (struck?.effect === 'drop') return null;
    if (struck?.effect === 'delay' && struck.delay_ms >= this.config.timeoutMs) return null;
    return this.withSlot(() => this.send(endpoint, body, attempt));
  }

  private async send(endpoint: Endpoint, body: string, attempt: number): Promise<number | null> {
    try {
      // The request goes to the address just checked, never to a fresh lookup of the name.
      const address = endpoint.owner !== null && this.webhooks.guardsUrls ? await this.guard.check(endpoint.url) : undefined;
      const timestamp = Math.floor(this.clock.now() / 1000);
      const response = await this.http.request({
        method: 'POST',
        url: endpoint.url,
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': 'agent-services-webhooks/1',
          'Agent-Signature': signatureHeader(endpoint.secret, timestamp, body),
          'Agent-Webhook-Id': endpoint.webhook_id,
          'Agent-Delivery-Attempt': String(attempt),
        },
        body,
        timeoutMs: this.config.timeoutMs,
        ...(address !== undefined ? { address } : {}),
      });
      return response.status;
    } catch {
      // Refused, reset, timed out, or (live) re-pointed at a private address: no answer.
      return null;
    }
  }

  /** Writes an attempt's outcome; a 2xx from any attempt delivers, failures count only for the newest attempt. */
  private async record(tx: StoreTransaction, deliveryId: string, attempt: number, status: number | null): Promise<void> {
    const delivery = await tx.get<StoredDelivery>(DELIVERIES, deliveryId);
    if (!delivery || delivery.status !== 'pending') return;
    const delivered = status !== null && status >= 200 && status < 300;
    if (!delivered && delivery.attempts !== attempt) return;
    const done = delivered || attempt >= MAX_ATTEMPTS;
    if (done && delivery.job_id) await this.scheduler.cancel(tx, delivery.job_id);
    const next: StoredDelivery = done ? { ...delivery, status: delivered ? 'delivered' : 'failed', last_response_status: status, next_attempt_at: null, job_id: null } : { ...delivery, last_response_status: status };
    await tx.update<StoredDelivery>(DELIVERIES, deliveryId, next);
  }
}

function toWire(delivery: StoredDelivery): WebhookDelivery {
  return {
    delivery_id: delivery.delivery_id,
    webhook_id: delivery.webhook_id,
    event_id: delivery.event_id,
    type: delivery.type,
    url: delivery.url,
    attempts: delivery.attempts,
    status: delivery.status as DeliveryStatus,
    last_response_status: delivery.last_response_status,
    next_attempt_at: delivery.next_attempt_at,
  };
}
