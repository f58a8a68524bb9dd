import type { AsyncLocalStorage } from 'node:async_hooks';

/** What admission needs of a store's durable unit. */
export interface AdmittedUnit {
  open: boolean;
  /** Outside work (`store.outside`) to run once the unit is durable. */
  outside: Array<() => Promise<unknown>>;
}

/**
 * The admission bookkeeping both stores share: how many top-level durable units are under way,
 * the gate an exclusive section (`store.exclusive`, a restore) closes so new units and
 * transactions wait, and the outside work a unit defers until it is durable.
 */
export class UnitAdmission<U extends AdmittedUnit> {
  /** Top-level units under way. */
  private openUnits = 0;
  /** Set while an exclusive section waits or runs. */
  private gate: Promise<void> | null = null;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly units: AsyncLocalStorage<U>) {}

  /** Whether a top-level unit is under way. */
  get busy(): boolean {
    return this.openUnits > 0;
  }

  /** The open unit the caller runs in, if any. */
  current(): U | undefined {
    const unit = this.units.getStore();
    return unit?.open ? unit : undefined;
  }

  /**
   * A wait for the exclusive section to end, unless the caller runs in an open unit (whose work
   * must finish first); undefined when there is nothing to wait for, so a transaction without a
   * gate runs in the caller's turn, as it always has.
   */
  admitTransaction(): Promise<void> | undefined {
    if (!this.gate || this.current()) return undefined;
    return (async () => {
      while (this.gate && !this.current()) await this.gate;
    })();
  }

  /** Counts a new top-level unit, after the exclusive section if one is under way (then the answer is a wait). */
  enterUnit(): Promise<void> | undefined {
    if (!this.gate) {
      this.openUnits++;
      return undefined;
    }
    return (async () => {
      while (this.gate) await this.gate;
      this.openUnits++;
    })();
  }

  /**
   * Counts a top-level unit as ended and wakes an exclusive section waiting for quiet. The last
   * open unit's end also disables the units' `AsyncLocalStorage` (the next unit enables it again):
   * on Node 20 an enabled one keeps promise hooks on for the whole process, which cost a third of
   * the CPU of every later in-process send once a single keyed request or job had run. No unit is
   * open then, so nothing asks it for one that is.
   */
  leaveUnit(): void {
    this.openUnits--;
    if (this.openUnits === 0) this.units.disable();
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }

  /** `store.outside`: at once outside a unit; inside one, deferred until the unit is durable. */
  outside<T>(work: () => Promise<T>): Promise<T> | undefined {
    const unit = this.current();
    if (!unit) return work();
    unit.outside.push(work);
    return undefined;
  }

  /**
   * Runs `work` alone: closes the gate, waits until no unit is open and `settle` (the store's
   * pending commit, answering whether it had to wait) finds nothing left, then runs it.
   */
  async exclusive<T>(work: () => T | Promise<T>, settle: () => Promise<boolean> = async () => false): Promise<T> {
    while (this.gate) await this.gate;
    let release!: () => void;
    this.gate = new Promise<void>((resolve) => (release = resolve));
    try {
      for (;;) {
        if (this.openUnits > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
        else if (!(await settle())) break;
      }
      return await work();
    } finally {
      this.gate = null;
      release();
    }
  }
}
