import type { FaultChoice, Faults } from '../../core/ports/faults.js';
import type { PageQuery, PageResult, Store, StoreTransaction } from '../../core/ports/store.js';
import { FAULTS } from '../../core/faults/fault.service.js';
import { EVENTS } from '../../providers/events/store-event-log.js';
import { currentRequest, type RequestContext } from './request-context.js';

/** Thrown inside a transaction to roll it back when a `persistence.write` fault hits it. */
class InjectedWriteFailure extends Error {
  constructor(readonly choice: FaultChoice) {
    super('injected persistence.write fault');
  }
}

/**
 * Collections a fault's own book-keeping writes (its hit and its event): a transaction that
 * writes nothing else is not the request's write, so it never draws `persistence.write`.
 */
const BOOKKEEPING = new Set([FAULTS, EVENTS]);

/** A transaction that notes whether it wrote any of the request's own state. */
class NotingTransaction implements StoreTransaction {
  wrote = false;
  beforeCommit?: (work: (tx: StoreTransaction) => Promise<void>) => void;
  insertNumbered?: NonNullable<StoreTransaction['insertNumbered']>;
  constructor(private readonly inner: StoreTransaction) {
    const later = inner.beforeCommit?.bind(inner);
    if (later) this.beforeCommit = later;
    const numbered = inner.insertNumbered?.bind(inner);
    if (numbered) this.insertNumbered = numbered;
  }
  get<T>(collection: string, id: string): Promise<T | undefined> {
    return this.inner.get<T>(collection, id);
  }
  page<T>(collection: string, query: PageQuery): Promise<PageResult<T>> {
    return this.inner.page<T>(collection, query);
  }
  all<T>(collection: string): Promise<T[]> {
    return this.inner.all<T>(collection);
  }
  count(collection: string, partition?: string): Promise<number> {
    return this.inner.count(collection, partition);
  }
  lastPosition(collection: string): Promise<number> {
    return this.inner.lastPosition(collection);
  }
  insert<T>(collection: string, id: string, record: T, partition?: string): Promise<void> {
    if (!BOOKKEEPING.has(collection)) this.wrote = true;
    return this.inner.insert(collection, id, record, partition);
  }
  update<T>(collection: string, id: string, record: T): Promise<void> {
    if (!BOOKKEEPING.has(collection)) this.wrote = true;
    return this.inner.update(collection, id, record);
  }
  remove(collection: string, id: string): Promise<boolean> {
    if (!BOOKKEEPING.has(collection)) this.wrote = true;
    return this.inner.remove(collection, id);
  }
  lock(collection: string, ids: readonly string[]): Promise<void> {
    return this.inner.lock(collection, ids);
  }
  prefetch(collection: string, ids: readonly string[]): void {
    this.inner.prefetch?.(collection, ids);
  }
  afterCommit(callback: () => void): void {
    this.inner.afterCommit(callback);
  }
  afterApply(callback: () => void): void {
    this.inner.afterApply(callback);
  }
}

/**
 * The store as requests see it when `persistence.write` faults exist: the first transaction of an
 * API request that writes anything draws the request's fault once; when it hits, the transaction
 * is rolled back (nothing of the request was applied before it, so the state is exactly as it
 * was), the hit and its `fault.injected` event are recorded on their own, and the request fails
 * as a store whose commit failed would make it fail: 500 internal_error. Without an armed fault,
 * or outside a request (the control plane, clock jobs), every call goes straight through. Laid
 * over the store by `storeWithTransaction`, which keeps everything else.
 */
export class FaultingStore implements Pick<Store, 'transaction'> {
  constructor(
    private readonly inner: Store,
    private readonly faults: () => Faults,
  ) {}

  transaction<T>(fn: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    const request = currentRequest();
    // Straight through without a promise of its own: every money movement passes here (a request
    // carries a context only while some fault is set).
    if (!request || request.persistenceDecided) return this.inner.transaction(fn);
    return this.faulted(request, fn);
  }

  /** A request's transaction while some fault is set: faulted when a `persistence.write` fault is armed. */
  private async faulted<T>(request: RequestContext, fn: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    if (!(await this.faults().armed(this.inner.view, 'persistence.write'))) return this.inner.transaction(fn);
    try {
      return await this.inner.transaction(async (tx) => {
        const noting = new NotingTransaction(tx);
        const result = await fn(noting);
        if (noting.wrote && !request.persistenceDecided) {
          request.persistenceDecided = true;
          const choice = await this.faults().choose(tx, 'persistence.write', { agent_id: request.agent_id, fields: { route: request.route } });
          if (choice) throw new InjectedWriteFailure(choice);
        }
        return result;
      });
    } catch (error) {
      if (!(error instanceof InjectedWriteFailure)) throw error;
      await this.faults().record(error.choice);
      throw new Error(`the write to the store failed (injected fault ${error.choice.struck.fault_id})`);
    }
  }
}
