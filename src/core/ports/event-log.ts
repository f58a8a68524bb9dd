import type { ServiceIdentifier } from '../shared/di.js';
import type { EventData, LoggedEventType } from '../events/events.schema.js';
import type { StoreTransaction } from './store.js';

/** One entry of the ordered log of state changes. */
export interface ServiceEvent {
  seq: number;
  type: string;
  agent_id: string | null;
  at: string;
  /** JSON; for a logged type of the catalog it fits that type's `data` schema (see {@link LoggedEvent}). */
  data: { readonly [key: string]: unknown };
}

/** An event as its append hooks see it: everything but the sequence number, which may not be drawn yet. */
export type AppendedEvent = Omit<ServiceEvent, 'seq'>;

/**
 * What a service says happened; the log adds `seq` and `at`. Typed by the event catalog
 * (`core/events/events.schema.ts`): a type it does not declare, or `data` that does not fit the
 * declared schema, does not compile.
 */
export type NewEvent = { [T in LoggedEventType]: { type: T; agent_id: string | null; data: EventData<T> } }[LoggedEventType];

/** A logged event of one declared type, its `data` typed by the catalog. */
export type LoggedEvent<T extends LoggedEventType> = Omit<ServiceEvent, 'type' | 'data'> & { type: T; data: EventData<T> };

/**
 * The one ordered log every state change appends to, inside the transaction that made the change,
 * so an event exists exactly when its change does.
 */
export interface EventLog {
  /**
   * Appends an event in the caller's transaction. Its sequence number is drawn at once on stores
   * that run alone, and just before the commit on a shared store (so that numbers follow commit
   * order without holding a lock for the whole transaction).
   */
  append(tx: StoreTransaction, event: NewEvent): Promise<void>;
  /**
   * Appends `events` in the caller's transaction, in order, exactly as that many {@link append}
   * calls one after another would (numbers, hooks, and an event a hook appends between them), in
   * one call: a book transfer appends two events on every send.
   */
  appendAll(tx: StoreTransaction, events: readonly NewEvent[]): Promise<void>;
  /**
   * Events with `seq` greater than `after`, oldest first, at most `limit`: on a shared store only
   * up to {@link newest}, so that a reader never meets a smaller `seq` after a larger one.
   */
  after(after: number, limit: number): Promise<ServiceEvent[]>;
  /**
   * The newest `seq` a reader may read up to now: the log's last on a store no other process
   * serves; on a shared store its settled position, below which no number is still held by a
   * transaction under way (an event committed past it is read once that transaction has ended).
   */
  newest(): Promise<number>;
  /**
   * Registers a listener called after commit for each new event (streams), in `seq` order. With
   * `committedHere`, only the events committed by this process, in its commit order (counters each
   * process keeps of its own work, which a monitoring system sums over the processes); on a store
   * no other process serves that is every event. A log shared by several processes reads the other
   * processes' events only while a listener of every event is subscribed.
   */
  subscribe(listener: (event: ServiceEvent) => void, options?: { committedHere?: boolean }): () => void;
  /**
   * Registers work that must commit with every new event: called inside the appending
   * transaction, so what it writes (webhook deliveries and their jobs) exists exactly when the
   * event does. A throw rolls the whole transaction back, so hooks must not fail on good events.
   * A hook with nothing to write may answer undefined rather than a promise (no await is spent on it).
   * The hook does not see `seq`: a shared store draws it only just before the commit, and runs
   * the hooks at the append, so that the events' turn is held as briefly as possible.
   */
  onAppend(hook: (tx: StoreTransaction, event: AppendedEvent) => Promise<void> | undefined): void;
}

/** Injection token of {@link EventLog}. */
export const EventLog = Symbol.for('agent-services/EventLog') as ServiceIdentifier<EventLog>;
