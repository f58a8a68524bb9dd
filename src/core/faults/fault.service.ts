import { inject, injectable } from '../shared/di.js';
import { Clock } from '../ports/clock.js';
import { EventLog } from '../ports/event-log.js';
import type { FaultChoice, FaultOperation, Faults, StruckFault } from '../ports/faults.js';
import { Random } from '../ports/random.js';
import { Store, type StoreTransaction, type StoreView } from '../ports/store.js';
import { notFound } from '../shared/api-error.js';
import { toIso } from '../shared/time.js';
import { TARGET_RULES, type FaultTarget } from './fault-targets.js';
import { drawUnit, operationMatches } from './fault-matching.js';
import type { AddFaultBody, Fault, FaultList } from './faults.schema.js';

/** Collection and id of the one record that holds every fault (in the store: snapshots keep them). */
export const FAULTS = 'sim_faults';
const FAULTS_ID = 'faults';

interface FaultSet {
  next_id: number;
  faults: Fault[];
}

/** A validated fault request (the output of {@link AddFaultBody}). */
export type FaultSpec = ReturnType<typeof AddFaultBody.parse>;

/**
 * The one fault language (`/_sim/faults`): faults on named port operations, kept in the store,
 * consulted by port call sites and port decorators through the {@link Faults} port. Among the
 * active faults of a target that match an operation, the one with the most `match` fields wins,
 * then the oldest; each draws its `probability` from the seeded random port (only when below 1,
 * so faults that always hit leave the random sequence alone). One fault at most hits an operation.
 */
@injectable()
export class FaultService implements Faults {
  /** Told whenever this process writes the fault set ({@link onWrite}). */
  private readonly writeListeners: Array<() => void> = [];

  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    @inject(Random) private readonly random: Random,
    @inject(EventLog) private readonly events: EventLog,
  ) {}

  /**
   * Calls `listener` whenever this process writes the fault set: when a control-plane change
   * begins and once it has settled (committed or failed), and for every write (a hit counting down
   * `count` included) as it is made, once applied and once durable. A cache of "is any fault set?"
   * forgets its answer on each call, so no answer read before a write outlives it here.
   */
  onWrite(listener: () => void): void {
    this.writeListeners.push(listener);
  }

  /** Adds a fault. */
  async add(spec: FaultSpec): Promise<Fault> {
    const [fault] = await this.addGroup([spec], false);
    return fault!;
  }

  /** Adds faults that are used up together: the first hit on any of them ends them all (when `grouped`). */
  async addGroup(specs: FaultSpec[], grouped = true): Promise<Fault[]> {
    return this.writing(async (tx) => {
      const set = await this.setOf(tx);
      const group = grouped ? `flt_${set.next_id}` : null;
      const created = specs.map((spec, index): Fault => {
        const rules = TARGET_RULES[spec.target];
        return {
          fault_id: `flt_${set.next_id + index}`,
          target: spec.target,
          effect: spec.effect,
          probability: spec.probability ?? 1,
          count: spec.count ?? null,
          match: { ...(spec.match ?? {}) },
          delay_seconds: spec.effect === 'delay' ? (spec.delay_seconds ?? null) : null,
          error_code: spec.effect === 'fail' ? (spec.error_code ?? rules.defaultErrorCode) : null,
          hits: 0,
          active: true,
          group,
          created_at: toIso(this.clock.now()),
        };
      });
      await this.save(tx, { next_id: set.next_id + specs.length, faults: [...set.faults, ...created] });
      return created;
    });
  }

  /** Every fault, oldest first, with its hits. */
  async list(): Promise<FaultList> {
    return { faults: (await this.setOf(this.store.view)).faults };
  }

  /** Removes one fault. @throws ApiError 404 not_found */
  async remove(faultId: string): Promise<void> {
    await this.writing(async (tx) => {
      const set = await this.setOf(tx);
      if (!set.faults.some((fault) => fault.fault_id === faultId)) throw notFound('fault');
      await this.save(tx, { ...set, faults: set.faults.filter((fault) => fault.fault_id !== faultId) });
    });
  }

  /** Removes every fault, or every fault of the given targets. */
  async clear(targets?: readonly FaultTarget[]): Promise<void> {
    await this.writing(async (tx) => {
      const set = await this.setOf(tx);
      if (set.faults.length === 0) return;
      await this.save(tx, { ...set, faults: targets ? set.faults.filter((fault) => !targets.includes(fault.target)) : [] });
    });
  }

  async armed(view: StoreView, target: FaultTarget): Promise<boolean> {
    const set = await view.get<FaultSet>(FAULTS, FAULTS_ID);
    return set !== undefined && set.faults.some((fault) => fault.active && fault.target === target);
  }

  anyArmed(view: StoreView): Promise<boolean> {
    // A handler on the read rather than an async frame. The runtime's gate (faults-gate.ts) keeps
    // the answer, so requests ask it only after a write of the faults.
    return view.get<FaultSet>(FAULTS, FAULTS_ID).then((set) => set !== undefined && set.faults.some((fault) => fault.active));
  }

  async strike(tx: StoreTransaction, target: FaultTarget, operation: FaultOperation): Promise<StruckFault | null> {
    const choice = await this.choose(tx, target, operation);
    if (!choice) return null;
    await this.recordIn(tx, choice);
    return choice.struck;
  }

  async strikeNow(target: FaultTarget, operation: FaultOperation): Promise<StruckFault | null> {
    if (!(await this.armed(this.store.view, target))) return null;
    return this.writing((tx) => this.strike(tx, target, operation));
  }

  async choose(view: StoreView, target: FaultTarget, operation: FaultOperation): Promise<FaultChoice | null> {
    const set = await view.get<FaultSet>(FAULTS, FAULTS_ID);
    if (!set) return null;
    const candidates = set.faults
      .map((fault, order) => ({ fault, order, specificity: Object.keys(fault.match).length }))
      .filter(({ fault }) => fault.active && fault.target === target && operationMatches(fault.match, operation))
      .sort((a, b) => b.specificity - a.specificity || a.order - b.order);
    for (const { fault } of candidates) {
      if (fault.probability <= 0) continue;
      if (fault.probability < 1 && drawUnit(this.random.bytes(4)) >= fault.probability) continue;
      const struck: StruckFault = {
        fault_id: fault.fault_id,
        target,
        effect: fault.effect,
        delay_ms: Math.round((fault.delay_seconds ?? 0) * 1000),
        error_code: fault.error_code,
      };
      return { struck, target, operation };
    }
    return null;
  }

  async record(choice: FaultChoice): Promise<void> {
    await this.writing((tx) => this.recordIn(tx, choice));
  }

  /** Counts the hit (ending the fault, or its group, when used up) and appends `fault.injected`. */
  private async recordIn(tx: StoreTransaction, { struck, target, operation }: FaultChoice): Promise<void> {
    const set = await this.setOf(tx);
    const hit = set.faults.find((fault) => fault.fault_id === struck.fault_id);
    if (hit) {
      const hits = hit.hits + 1;
      const usedUp = hit.count !== null && hits >= hit.count;
      const faults = set.faults.map((fault) => {
        if (fault === hit) return { ...fault, hits, active: fault.active && !usedUp && fault.group === null };
        return fault.group !== null && fault.group === hit.group ? { ...fault, active: false } : fault;
      });
      await this.save(tx, { ...set, faults });
    }
    await this.events.append(tx, {
      type: 'fault.injected',
      agent_id: operation.agent_id,
      data: {
        fault_id: struck.fault_id,
        target,
        effect: struck.effect,
        operation: { ...operation.fields },
        ...(struck.effect === 'delay' ? { delay_seconds: struck.delay_ms / 1000 } : {}),
        ...(struck.error_code !== null ? { error_code: struck.error_code } : {}),
      },
    });
  }

  private async setOf(view: StoreView): Promise<FaultSet> {
    return (await view.get<FaultSet>(FAULTS, FAULTS_ID)) ?? { next_id: 1, faults: [] };
  }

  /**
   * A transaction of this service that may write the fault set, with the listeners told as it
   * begins (a request that begins meanwhile reads the store, as it would without a cache) and
   * once it has settled: a store whose commit failed has undone the write, and a cache may have
   * read it in between.
   */
  private async writing<T>(fn: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    this.wrote();
    try {
      return await this.store.transaction(fn);
    } finally {
      this.wrote();
    }
  }

  /** Tells the listeners of {@link onWrite}. */
  private wrote(): void {
    for (const listener of this.writeListeners) listener();
  }

  /** Every write of the fault set goes through here, so the listeners of {@link onWrite} hear of each. */
  private async save(tx: StoreTransaction, set: FaultSet): Promise<void> {
    // At once (a read from now until the commit is not kept), once applied (what the memory and
    // SQLite stores show to readers before the commit is durable) and once durable (PostgreSQL
    // shows a write to other readers only then).
    this.wrote();
    tx.afterApply(() => this.wrote());
    tx.afterCommit(() => this.wrote());
    if (await tx.get<FaultSet>(FAULTS, FAULTS_ID)) await tx.update(FAULTS, FAULTS_ID, set);
    else await tx.insert(FAULTS, FAULTS_ID, set);
  }
}
