import { inject, injectable } from '../../core/shared/di.js';
import { Clock } from '../../core/ports/clock.js';
import type { AppendedEvent, EventLog, NewEvent, ServiceEvent } from '../../core/ports/event-log.js';
import { Store, type StoreTransaction } from '../../core/ports/store.js';
import { toIso } from '../../core/shared/time.js';

/** The collection that holds the event log. */
export const EVENTS = 'events';
const PARTITION = '';
/** How late this process may hear of events another process committed (ms). */
const REMOTE_LATENCY_MS = 200;
/** Events a delivery reads at once. */
const PUMP_BATCH = 500;
/** The first and the longest wait before a delivery that could not read the store tries again (ms). */
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5000;
/** How soon the delivery looks again at events held back for a smaller number under way (ms). */
const HELD_MS = 20;
/** Expired events each append removes at most, so retention costs O(1) per event. */
const SWEEP_PER_APPEND = 2;

/**
 * The event log kept as a store collection, so it is written in the same transaction as the
 * change it records and travels with snapshots. Sequence numbers start at 1 and have no gaps: an
 * event's sequence number is its position in the collection. With a retention, events older than
 * it (in service time) are removed as new ones arrive; by default every event is kept.
 */
@injectable()
export class StoreEventLog implements EventLog {
  private readonly listeners = new Set<(event: ServiceEvent) => void>();
  /** On a shared store: listeners of the events committed by this process only (see {@link subscribe}). */
  private readonly localListeners = new Set<(event: ServiceEvent) => void>();
  /**
   * On a shared store: whether events were committed while no listener followed every event, so
   * that the delivery stopped reading them and must start afresh for the next such listener.
   */
  private lapsed = false;
  private readonly appendHooks: Array<(tx: StoreTransaction, event: AppendedEvent) => Promise<void> | undefined> = [];

  /** On a shared store: the newest event handed to the listeners, and the delivery under way. */
  private delivered: Promise<number> | undefined;
  /** The same number once known, for {@link committedHere}. */
  private deliveredSeq: number | undefined;
  private pumping: Promise<void> | undefined;
  private pumpAgain = false;
  /** The smallest number committed here before the starting point was known (see {@link startAt}). */
  private firstHere: number | undefined;
  /** The wait before the next try of a delivery that could not read the store, and its timer. */
  private retryMs = RETRY_FIRST_MS;
  private retry: NodeJS.Timeout | undefined;
  /** The pump's next look at events held back for a number under way (see {@link readSettled}). */
  private soon: NodeJS.Timeout | undefined;

  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    private readonly retentionMs: number | null = null,
  ) {
    // Other processes append too: their events reach this process's listeners through the store
    // (read only while a listener follows every event: see subscribe).
    if (store.shared) {
      this.lapsed = true;
      // Within a fifth of the second DECISIONS.md allows: commits of events alone are then
      // announced a few times a second in batches, not one NOTIFY each.
      store.shared.onRemoteCommit(() => this.pump(), { collections: [EVENTS], latencyMs: REMOTE_LATENCY_MS });
    }
  }

  append(tx: StoreTransaction, event: NewEvent): Promise<void> {
    const now = this.clock.now();
    // A store without beforeCommit runs its transactions one at a time: no lock to take, and no
    // async frame of its own around write's (two appends a send).
    if (!tx.beforeCommit) return this.write(tx, [event], now);
    return this.appendShared(tx, event, now);
  }

  appendAll(tx: StoreTransaction, events: readonly NewEvent[]): Promise<void> {
    const now = this.clock.now();
    // One async frame for all of them (a book transfer appends two), each numbered and hooked in
    // turn exactly as separate appends would be.
    if (!tx.beforeCommit) return this.write(tx, events, now);
    return this.appendSharedAll(tx, events, now);
  }

  private async appendSharedAll(tx: StoreTransaction, events: readonly NewEvent[], now: number): Promise<void> {
    for (let i = 0; i < events.length; i++) await this.appendShared(tx, events[i]!, now);
  }

  /**
   * A shared store numbers the events just before the commit, in the COMMIT's own batch. The
   * hooks (which do not need the number) run now, at the append.
   */
  private async appendShared(tx: StoreTransaction, event: NewEvent, now: number): Promise<void> {
    const appended: AppendedEvent = { type: event.type, agent_id: event.agent_id, at: toIso(now), data: event.data };
    for (const hook of this.appendHooks) await hook(tx, appended);
    tx.beforeCommit!((last) => this.writeNumbered(last, event, now));
  }

  /**
   * On a store that runs transactions one at a time: numbers the events one after another, stores
   * each, arranges its delivery to listeners and runs its append hooks.
   */
  private async write(tx: StoreTransaction, events: readonly NewEvent[], now: number): Promise<void> {
    // Indexed: an iterator held across the awaits would be an object per step. Each event is
    // numbered at its own insert, so an event a hook appends (re-entering) takes the next number
    // and the following event of `events` the one after it, as with separate appends.
    const at = toIso(now);
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      let entry: ServiceEvent;
      if (tx.insertNumbered) {
        // A store that numbers its inserts (memory) numbers the event at once, in one call rather
        // than a read of the last position and an insert.
        entry = { seq: 0, type: event.type, agent_id: event.agent_id, at, data: event.data };
        await tx.insertNumbered(EVENTS, 'seq', entry, PARTITION);
      } else {
        const seq = (await tx.lastPosition(EVENTS)) + 1;
        entry = { seq, type: event.type, agent_id: event.agent_id, at, data: event.data };
        await tx.insert(EVENTS, String(entry.seq), entry, PARTITION);
      }
      if (this.retentionMs !== null) await this.sweep(tx, now - this.retentionMs);
      // Delivery is arranged before the hooks run, so that an event a hook appends (numbered
      // after this one) reaches the listeners after it too.
      tx.afterCommit(() => this.deliver(entry));
      // Indexed too: a for...of over the hooks keeps an iterator object alive across the await.
      for (let h = 0; h < this.appendHooks.length; h++) {
        const writing = this.appendHooks[h]!(tx, entry);
        if (writing) await writing;
      }
    }
  }

  /**
   * A store that numbers records with its COMMIT: the event gets its number there (writers do not
   * wait for each other; readers read up to the store's settled position), and its listeners get it
   * once it is durable, numbered.
   */
  private async writeNumbered(tx: StoreTransaction, event: NewEvent, now: number): Promise<void> {
    if (!tx.insertNumbered) throw new Error('a store with beforeCommit must offer insertNumbered to its before-commit steps');
    const entry: ServiceEvent = { seq: 0, type: event.type, agent_id: event.agent_id, at: toIso(now), data: event.data };
    await tx.insertNumbered(EVENTS, 'seq', entry, PARTITION);
    if (this.retentionMs !== null) await this.sweep(tx, now - this.retentionMs);
    tx.afterCommit(() => {
      if (this.localListeners.size > 0) this.deliver(entry, this.localListeners);
      this.committedHere(entry);
    });
  }

  /**
   * A shared store committed `entry` in this process. When it comes right after the last event
   * delivered and no delivery is under way, no other event can come between them (every smaller
   * number was delivered), so it is handed to the listeners at once instead of read back;
   * otherwise the pump reads from where it stopped, up to the settled position.
   */
  private committedHere(entry: ServiceEvent): void {
    if (this.listeners.size === 0) {
      this.lapsed = true;
      return;
    }
    if (this.deliveredSeq === undefined) this.firstHere = Math.min(this.firstHere ?? entry.seq, entry.seq);
    if (this.pumping || this.deliveredSeq !== entry.seq - 1) {
      this.pump();
      return;
    }
    this.deliveredSeq = entry.seq;
    this.delivered = Promise.resolve(entry.seq);
    this.deliver(entry);
  }

  /**
   * Hands `event` to every listener. One that throws is reported and keeps the event neither from
   * the others nor the pump from going on: taken for a failed read, it would be delivered again.
   */
  private deliver(event: ServiceEvent, listeners: ReadonlySet<(event: ServiceEvent) => void> = this.listeners): void {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (error) {
        process.stderr.write(`event log: a listener failed on event ${event.seq}: ${(error as Error)?.stack ?? String(error)}\n`);
      }
    }
  }

  /**
   * Reads where delivery starts: the last event committed so far (listeners hear of later ones),
   * or before the first event committed here if that is earlier (the read came after it, or was
   * read again after a failure).
   */
  private startAt(): void {
    this.delivered = this.newest().then((last) => {
      this.deliveredSeq ??= Math.min(last, (this.firstHere ?? Number.POSITIVE_INFINITY) - 1);
      return this.deliveredSeq;
    });
    this.delivered.catch(() => undefined);
  }

  /**
   * On a shared store the settled position (SharedStore.settledPosition), not the sequence's last
   * value nor the newest event: a smaller number may still be held by a transaction under way, and
   * delivery started past it would skip that event.
   */
  newest(): Promise<number> {
    if (!this.store.shared) return this.store.view.lastPosition(EVENTS);
    return this.store.shared.settledPosition(EVENTS);
  }

  /**
   * Hands every committed event after the last delivered one to the listeners, in order (a
   * shared store: local and remote commits alike), one delivery at a time.
   */
  private pump(): void {
    if (this.listeners.size === 0) {
      this.lapsed = true;
      return;
    }
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = (async () => {
      try {
        do {
          this.pumpAgain = false;
          let last = await this.delivered!;
          for (;;) {
            const { events, held } = await this.readSettled(last, PUMP_BATCH);
            for (const event of events) this.deliver(event);
            if (events.length > 0) last = events[events.length - 1]!.seq;
            this.deliveredSeq = last;
            this.delivered = Promise.resolve(last);
            // Events held back for a number under way: its commit announces itself, its rollback
            // does not, so the delivery looks again shortly.
            if (held) this.pumpSoon();
            if (events.length < PUMP_BATCH) break;
          }
        } while (this.pumpAgain);
        this.retryMs = RETRY_FIRST_MS;
      } catch {
        // The database is away. Waiting for the next commit or notice could hold committed events
        // back from the listeners for good (a quiet world, or a NOTIFY lost with the connection),
        // so the delivery tries again from where it stopped, less often the longer it fails.
        if (this.deliveredSeq === undefined) this.startAt();
        this.retryLater();
      } finally {
        this.pumping = undefined;
      }
    })();
  }

  /** Runs the pump again in {@link HELD_MS}, once. */
  private pumpSoon(): void {
    if (this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      this.pump();
    }, HELD_MS);
    this.soon.unref();
  }

  private retryLater(): void {
    if (this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.pump();
    }, this.retryMs);
    this.retry.unref();
    this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
  }

  async after(after: number, limit: number): Promise<ServiceEvent[]> {
    return (await this.readSettled(after, limit)).events;
  }

  /**
   * Events after `after`, oldest first, at most `limit`; on a shared store only up to the settled
   * position (`held`: committed events past it wait for a smaller number still held by a
   * transaction under way), so that no reader meets the smaller number after the larger one.
   */
  private async readSettled(after: number, limit: number): Promise<{ events: ServiceEvent[]; held: boolean }> {
    const settled = this.store.shared ? await this.store.shared.settledPosition(EVENTS) : Number.POSITIVE_INFINITY;
    const page = await this.store.view.page<ServiceEvent>(EVENTS, { partition: PARTITION, order: 'oldest', after: Math.max(0, after), limit });
    const events: ServiceEvent[] = [];
    for (const item of page.items) if (item.position <= settled) events.push(item.record);
    return { events, held: events.length < page.items.length };
  }

  onAppend(hook: (tx: StoreTransaction, event: AppendedEvent) => Promise<void> | undefined): void {
    this.appendHooks.push(hook);
  }

  subscribe(listener: (event: ServiceEvent) => void, options: { committedHere?: boolean } = {}): () => void {
    // Every event of a store this process serves alone is committed here.
    const listeners = options.committedHere && this.store.shared ? this.localListeners : this.listeners;
    if (listeners === this.listeners && this.listeners.size === 0 && this.lapsed) {
      // Delivery starts afresh where the log ends now (and before events committed here meanwhile).
      this.lapsed = false;
      this.deliveredSeq = undefined;
      this.firstHere = undefined;
      this.startAt();
    }
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  /** Removes the oldest events stamped before `cutoffMs`. */
  private async sweep(tx: StoreTransaction, cutoffMs: number): Promise<void> {
    const oldest = await tx.page<ServiceEvent>(EVENTS, { partition: PARTITION, order: 'oldest', limit: SWEEP_PER_APPEND });
    for (const { record } of oldest.items) {
      if (Date.parse(record.at) >= cutoffMs) break;
      await tx.remove(EVENTS, String(record.seq));
    }
  }
}
