import { AsyncLocalStorage } from 'node:async_hooks';

/** The turn of one transaction; a handle compares its own against {@link TransactionTurns.current}. */
export type Turn = object;

/** A transaction waiting for its turn. */
interface Waiting {
  turn: Turn;
  /** The queued promise's resolve, called with {@link turn}. */
  start: (turn: Turn) => void;
  fail: (error: Error) => void;
}

/** A read waiting for the running transaction to end. */
interface WaitingRead {
  wake: () => void;
  fail: (error: Error) => void;
}

/**
 * Whether the stores check where they are called from (`AGENT_SERVICES_STORE_CHECKS=1`, set by the
 * test suite): see {@link TransactionTurns}.
 */
const STORE_CHECKS = process.env.AGENT_SERVICES_STORE_CHECKS === '1';

/** How long callers may wait on one running transaction before the wait is taken for a deadlock. */
const DEADLOCK_MS = 10_000;

const NESTED = 'store transactions do not nest';
const READ_INSIDE = 'a transaction reads through its handle: a read through store.view inside it waits for the transaction to end';

/**
 * One transaction at a time, in arrival order: the discipline of the stores that apply writes in
 * place (memory, SQLite). A transaction function is async, so without turns two of them could
 * interleave at their awaits; with them the world changes exactly as if each ran alone, in the
 * order they were called, which keeps a simulated world byte-for-byte deterministic.
 *
 * Reads through the view wait while a transaction runs, so no reader sees half of one. Waiting
 * readers go before the next transaction starts, so a queue of writers cannot starve them.
 *
 * A transaction reads through its own handle. Turns do not know which caller runs inside the
 * transaction: that would take an `AsyncLocalStorage`, whose promise hooks on Node 20 cost every
 * promise of the process (they doubled the CPU of an in-process send). So a read through the view,
 * or a transaction started, from inside a running transaction would wait for itself: it is
 * refused when it comes in the transaction's first synchronous step (known without context), and
 * with {@link STORE_CHECKS} on (the test suite) an `AsyncLocalStorage` finds it anywhere inside.
 * Elsewhere, a wait on one transaction of more than 10 s is taken for such a deadlock and fails,
 * so the transaction that waits for itself fails and rolls back instead of stopping the store.
 */
export class TransactionTurns {
  /** With store checks on: the turn the caller runs in. */
  private readonly scope: AsyncLocalStorage<Turn> | undefined;
  /** The turn of the running transaction, or of the one it was handed to; null when none. */
  current: Turn | null = null;
  /** Set while a transaction function runs its first synchronous step. */
  private starting = false;
  private readonly writers: Waiting[] = [];
  private readers: WaitingRead[] = [];
  private watchdog: ReturnType<typeof setTimeout> | undefined;

  /** `checks`: find callers inside the running transaction anywhere (instead of the deadlock watch). */
  constructor({ checks = STORE_CHECKS }: { checks?: boolean } = {}) {
    this.scope = checks ? new AsyncLocalStorage<Turn>() : undefined;
  }

  /** Whether a transaction runs (or is about to). */
  get busy(): boolean {
    return this.current !== null || this.writers.length > 0;
  }

  /** Whether the caller is known to run inside the running transaction. */
  private inside(): boolean {
    return this.current !== null && (this.starting || (this.scope !== undefined && this.scope.getStore() === this.current));
  }

  /**
   * Answers `read()` at once when no transaction runs, else once it has ended. A read that throws
   * answers a rejected promise.
   */
  read<R>(read: () => R): Promise<R> {
    if (this.current === null) {
      try {
        return Promise.resolve(read());
      } catch (error) {
        return Promise.reject(error);
      }
    }
    if (this.inside()) return Promise.reject(new Error(READ_INSIDE));
    return this.readLater(read);
  }

  /**
   * Runs `work` as the running transaction, after every transaction called before it. `work`
   * holds the turn until its promise settles; its handle goes ahead.
   * @throws Error when called from inside the running transaction, where it is known (transactions do not nest)
   */
  async run<T>(work: (turn: Turn) => Promise<T>): Promise<T> {
    const turn = this.begin() ?? (await this.queue());
    try {
      return await this.call(turn, work, turn);
    } finally {
      this.end();
    }
  }

  /**
   * Takes the turn at once when no transaction runs or waits, else answers undefined (then
   * {@link queue}). The caller ends it with {@link end}.
   * @throws Error when called from inside the running transaction, where it is known (transactions do not nest)
   */
  begin(): Turn | undefined {
    if (this.inside()) throw new Error(NESTED);
    if (this.busy) return undefined;
    const turn: Turn = {};
    this.current = turn;
    return turn;
  }

  /** A turn after every transaction called before this one. */
  queue(): Promise<Turn> {
    const turn: Turn = {};
    const started = new Promise<Turn>((start, fail) => this.writers.push({ turn, start, fail }));
    this.watch();
    return started;
  }

  /** Calls the transaction function of `turn` (its first synchronous step is known to run inside). */
  call<T, A>(turn: Turn, fn: (arg: A) => Promise<T>, arg: A): Promise<T> {
    this.starting = true;
    try {
      return this.scope ? this.scope.run(turn, fn, arg) : fn(arg);
    } finally {
      this.starting = false;
    }
  }

  private async readLater<R>(read: () => R): Promise<R> {
    for (;;) {
      const waited = new Promise<void>((wake, fail) => this.readers.push({ wake, fail }));
      this.watch();
      await waited;
      // Checked and read in the same job that woke us, before the next writer can start.
      if (this.current === null) return read();
    }
  }

  /** Arms the deadlock watch while callers wait on a running transaction. */
  private watch(): void {
    if (this.scope || this.watchdog !== undefined || this.current === null) return;
    const watched = this.current;
    this.watchdog = setTimeout(() => {
      this.watchdog = undefined;
      if (this.current !== watched) {
        if (this.readers.length > 0 || this.writers.length > 0) this.watch();
        return;
      }
      // The same transaction ran for the whole wait: what waits on it is failed, so a
      // transaction that waits for itself gets an error (and rolls back) and the turns move on.
      const error = new Error(`waited ${DEADLOCK_MS / 1000} s on a running store transaction: ${READ_INSIDE}, and a transaction started inside it waits too`);
      const readers = this.readers;
      this.readers = [];
      for (const reader of readers) reader.fail(error);
      for (const writer of this.writers.splice(0)) writer.fail(error);
    }, DEADLOCK_MS);
    this.watchdog.unref?.();
  }

  /** Ends the running turn: wakes the waiting readers, then hands the turn to the next writer. */
  end(): void {
    this.current = null;
    if (this.watchdog !== undefined && this.readers.length === 0 && this.writers.length === 0) {
      clearTimeout(this.watchdog);
      this.watchdog = undefined;
    }
    const readers = this.readers;
    if (readers.length > 0) {
      this.readers = [];
      for (const reader of readers) reader.wake();
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
    next.start(next.turn);
  }
}
