import type { ServiceIdentifier } from '../shared/di.js';
import type { Json } from '../shared/json.js';
import type { StoreTransaction } from './store.js';

/** One entry of the ordered log of state changes. */
export interface ServiceEvent {
  seq: number;
  type: string;
  agent_id: string | null;
  at: string;
  data: { [key: string]: Json };
}

/** What a service says happened; the log adds `seq` and `at`. */
export type NewEvent = Omit<ServiceEvent, 'seq' | 'at'>;

/**
 * The one ordered log every state change appends to, inside the transaction that made the change,
 * so an event exists exactly when its change does.
 */
export interface EventLog {
  /** Appends an event in the caller's transaction; answers it with its sequence number. */
  append(tx: StoreTransaction, event: NewEvent): Promise<ServiceEvent>;
  /** Events with `seq` greater than `after`, oldest first, at most `limit`. */
  after(after: number, limit: number): Promise<ServiceEvent[]>;
  /** Registers a listener called after commit for each new event (webhooks, streams). */
  subscribe(listener: (event: ServiceEvent) => void): () => void;
  /**
   * Registers work that must commit with every new event: called inside the appending
   * transaction, so what it writes (webhook deliveries and their jobs) exists exactly when the
   * event does. A throw rolls the whole transaction back, so hooks must not fail on good events.
   */
  onAppend(hook: (tx: StoreTransaction, event: ServiceEvent) => Promise<void>): void;
}

/** Injection token of {@link EventLog}. */
export const EventLog = Symbol.for('agent-services/EventLog') as ServiceIdentifier<EventLog>;
