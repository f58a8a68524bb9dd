import { AsyncLocalStorage } from 'node:async_hooks';

/** A transaction waiting for its turn. */
interface Waiting {
  turn: object;
  start: () => void;
}

/**
 * One transaction at a time, in arrival order: the discipline of the stores that apply writes in
 * place (memory, SQLite). A transaction function is async, so without turns two of them could
 * interleave at their awaits; with them the world changes exactly as if each ran alone, in the
 * order they were called, which keeps a simulated world byte-for-byte deterministic.
 *
 * Reads outside the running transaction wait until it ends, so no reader sees half of one; reads
 * made inside it (through its handle, or through a service it calls) go ahead at once. Waiting
 * readers go before the next transaction starts, so a queue of writers cannot starve them.
 */
export class TransactionTurns {
  private readonly scope = new AsyncLocalStorage<object>();
  /** The turn of the running transaction, or of the one it was handed to; null when none. */
  private current: object | null = null;
  private readonly writers: Waiting[] = [];
  private readers: Array<() => void> = [];

  /** Whether a transaction runs (or is about to). */
  get busy(): boolean {
    return this.current !== null || this.writers.length > 0;
  }

  /** Whether the caller runs inside the running transaction. */
  inside(): boolean {
    return this.current !== null && this.scope.getStore() === this.current;
  }

  /**
   * Answers `read()` at once when no other caller's transaction runs, else once it has ended.
   * A read that throws answers a rejected promise.
   */
  read<R>(read: () => R): Promise<R> {
    if (this.current === null || this.scope.getStore() === this.current) {
      try {
        return Promise.resolve(read());
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.readLater(read);
  }

  /**
   * Runs `work` as the running transaction, after every transaction called before it. `work`
   * holds the turn until its promise settles; its own reads and writes go ahead.
   * @throws Error when called from inside the running transaction (transactions do not nest)
   */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.inside()) throw new Error('store transactions do not nest');
    const turn = {};
    if (this.busy) await new Promise<void>((start) => this.writers.push({ turn, start }));
    else this.current = turn;
    try {
      return await this.scope.run(turn, work);
    } finally {
      this.release();
    }
  }

  private async readLater<R>(read: () => R): Promise<R> {
    for (;;) {
      await new Promise<void>((resolve) => this.readers.push(resolve));
      // Checked and read in the same job that woke us, before the next writer can start.
      if (this.current === null || this.scope.getStore() === this.current) return read();
    }
  }

  /** Ends the running turn: wakes the waiting readers, then hands the turn to the next writer. */
  private release(): void {
    this.current = null;
    const readers = this.readers;
    if (readers.length > 0) {
      this.readers = [];
      for (const wake of readers) wake();
      // After the readers' jobs, which were queued first.
      if (this.writers.length > 0) queueMicrotask(() => this.handOver());
      return;
    }
    this.handOver();
  }

  private handOver(): void {
    if (this.current !== null) return;
    const next = this.writers.shift();
    if (!next) return;
    this.current = next.turn;
    next.start();
  }
}
