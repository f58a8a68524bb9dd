import type { AsyncLocalStorage } from 'node:async_hooks';
import type Database from 'better-sqlite3';

/**
 * Transactions committed together by one SQLite COMMIT (one fsync): every transaction applied
 * while the group is open joins it, and each resolves only once the group's COMMIT is done.
 */
export interface Group {
  /** Open units that applied transactions in this group: it cannot commit before they close. */
  members: Set<Unit>;
  /** The event-loop turn that opened the group has passed: commit as soon as no member is open. */
  due: boolean;
  wrote: boolean;
  after: Array<() => void>;
  done: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** A durable unit in progress (see `Store.unit`). */
export interface Unit {
  open: boolean;
  group: Group | null;
  /** Outside work to run once the unit is durable (see `Store.outside`). */
  outside: Array<() => Promise<unknown>>;
}

/** What the group commit needs of the store around it. */
export interface GroupHost {
  /** The BEGIN, COMMIT and ROLLBACK statements (shared with the store, so a test can fail a COMMIT). */
  sql: { begin: Database.Statement; commit: Database.Statement; rollback: Database.Statement };
  db: Database.Database;
  units: AsyncLocalStorage<Unit>;
  /** A transaction's savepoint is open: the group cannot COMMIT now. */
  applying(): boolean;
  /** Writes what the group holds only in memory (next positions, runtime state) before its COMMIT. */
  beforeCommit(): void;
  /** The COMMIT succeeded. */
  committed(): void;
  /** The whole group was rolled back: cached figures and moved state are stale. */
  rolledBack(): void;
  /** Called once a group that wrote is durable (persistence, NOTIFY-like announcements). */
  hooks: ReadonlyArray<() => void | Promise<void>>;
  /** Receives errors thrown by after-commit callbacks. */
  onError(error: unknown): void;
}

/**
 * Group commit of the SQLite store: at most one group is open; it BEGINs with its first
 * transaction and COMMITs once the event-loop turn that opened it has passed and none of its
 * units is still open. A group whose turn has passed while a unit holds it is sealed: it takes no
 * new transactions but those of its own units, so a stream of arrivals cannot keep it open.
 */
export class CommitGroups {
  /** The open group, if any. */
  current: Group | null = null;
  /** Transactions waiting for a sealed group to commit. */
  private waiting: Array<() => void> = [];

  constructor(private readonly host: GroupHost) {}

  /** Whether the open group takes no more transactions but its units'. */
  sealed(): boolean {
    return this.current !== null && this.current.due && this.current.members.size > 0;
  }

  /** Resolves once the sealed group has committed or failed. */
  untilUnsealed(): Promise<void> {
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Opens a group: BEGIN now, COMMIT once this event-loop turn has passed. */
  open(): Group {
    this.host.sql.begin.run();
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Whoever waits on the group sees the failure; nobody waiting is not an unhandled rejection.
    done.catch(() => undefined);
    const group: Group = { members: new Set(), due: false, wrote: false, after: [], done, resolve, reject };
    this.current = group;
    // Outside any unit's context, so the COMMIT and its callbacks belong to no request.
    this.host.units.exit(() =>
      setImmediate(() => {
        group.due = true;
        this.maybeCommit(group);
      }),
    );
    return group;
  }

  join(unit: Unit, group: Group): void {
    unit.group = group;
    group.members.add(unit);
  }

  maybeCommit(group: Group): void {
    // Never while a transaction runs: its savepoint is still open.
    if (group === this.current && group.due && group.members.size === 0 && !this.host.applying()) this.commit(group);
  }

  /** Writes the group's positions and runtime state and commits it; on failure, fails the group. */
  commit(group: Group): void {
    try {
      this.host.beforeCommit();
      this.host.sql.commit.run();
    } catch (error) {
      this.fail(group, error);
      return;
    }
    this.current = null;
    this.host.committed();
    void this.finish(group);
    this.wake();
  }

  /** Rolls a group back whole, lets the store forget what it moved, and rejects its waiters. */
  fail(group: Group, error: unknown): void {
    if (this.current === group) this.current = null;
    try {
      if (this.host.db.inTransaction) this.host.sql.rollback.run();
    } catch {
      // The connection already dropped the transaction.
    }
    this.host.rolledBack();
    group.reject(error);
    this.wake();
  }

  private async finish(group: Group): Promise<void> {
    let failure: { error: unknown } | undefined;
    try {
      if (group.wrote && this.host.hooks.length > 0) await Promise.all(this.host.hooks.map((hook) => hook()));
    } catch (error) {
      failure = { error };
    }
    // The group is committed even when a hook failed, so its follow-up work still runs.
    this.host.units.exit(() => {
      for (const callback of group.after) {
        try {
          callback();
        } catch (error) {
          this.host.onError(error);
        }
      }
    });
    if (failure) group.reject(failure.error);
    else group.resolve();
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}
