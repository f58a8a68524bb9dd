import { inject, injectable } from '../../core/shared/di.js';
import { Clock } from '../../core/ports/clock.js';
import type { EventLog, NewEvent, ServiceEvent } from '../../core/ports/event-log.js';
import { Store, type StoreTransaction } from '../../core/ports/store.js';
import { toIso } from '../../core/shared/time.js';

const EVENTS = 'events';

/**
 * The event log kept as a store collection, so it is written in the same transaction as the
 * change it records and travels with snapshots. Sequence numbers start at 1 and have no gaps.
 */
@injectable()
export class StoreEventLog implements EventLog {
  private readonly listeners = new Set<(event: ServiceEvent) => void>();
  private readonly appendHooks: Array<(tx: StoreTransaction, event: ServiceEvent) => void> = [];

  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  append(tx: StoreTransaction, event: NewEvent): ServiceEvent {
    const entry: ServiceEvent = { seq: tx.count(EVENTS) + 1, type: event.type, agent_id: event.agent_id, at: toIso(this.clock.now()), data: event.data };
    tx.insert(EVENTS, String(entry.seq), entry);
    for (const hook of this.appendHooks) hook(tx, entry);
    tx.afterCommit(() => {
      for (const listener of this.listeners) listener(entry);
    });
    return entry;
  }

  after(after: number, limit: number): ServiceEvent[] {
    const events: ServiceEvent[] = [];
    for (let seq = Math.max(0, after) + 1; events.length < limit; seq++) {
      const event = this.store.view.get<ServiceEvent>(EVENTS, String(seq));
      if (!event) break;
      events.push(event);
    }
    return events;
  }

  onAppend(hook: (tx: StoreTransaction, event: ServiceEvent) => void): void {
    this.appendHooks.push(hook);
  }

  subscribe(listener: (event: ServiceEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
