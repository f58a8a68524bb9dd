import { inject, injectable } from '../../core/shared/di.js';
import { Clock } from '../../core/ports/clock.js';
import type { EventLog, NewEvent, ServiceEvent } from '../../core/ports/event-log.js';
import { Store, type StoreTransaction } from '../../core/ports/store.js';
import { toIso } from '../../core/shared/time.js';

/** The collection that holds the event log. */
export const EVENTS = 'events';
const PARTITION = '';
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
  private readonly appendHooks: Array<(tx: StoreTransaction, event: ServiceEvent) => Promise<void>> = [];

  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    private readonly retentionMs: number | null = null,
  ) {}

  async append(tx: StoreTransaction, event: NewEvent): Promise<ServiceEvent> {
    const now = this.clock.now();
    const entry: ServiceEvent = { seq: (await tx.lastPosition(EVENTS)) + 1, type: event.type, agent_id: event.agent_id, at: toIso(now), data: event.data };
    await tx.insert(EVENTS, String(entry.seq), entry, PARTITION);
    if (this.retentionMs !== null) await this.sweep(tx, now - this.retentionMs);
    for (const hook of this.appendHooks) await hook(tx, entry);
    tx.afterCommit(() => {
      for (const listener of this.listeners) listener(entry);
    });
    return entry;
  }

  async after(after: number, limit: number): Promise<ServiceEvent[]> {
    const page = await this.store.view.page<ServiceEvent>(EVENTS, { partition: PARTITION, order: 'oldest', after: Math.max(0, after), limit });
    return page.items.map((item) => item.record);
  }

  onAppend(hook: (tx: StoreTransaction, event: ServiceEvent) => Promise<void>): void {
    this.appendHooks.push(hook);
  }

  subscribe(listener: (event: ServiceEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
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
