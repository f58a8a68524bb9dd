import type { ServiceIdentifier } from '../shared/di.js';
import type { FaultEffect, FaultTarget } from '../faults/faults.schema.js';
import type { StoreTransaction, StoreView } from './store.js';

/** A value of an operation's field that `match` can compare with; a list matches when it holds the value. */
export type OperationField = string | number | boolean | null | readonly string[];

/**
 * An operation a port is about to perform, as faults see it: who it is for and the fields a
 * fault's `match` narrows by (`to`, `url`, `rail`, ...). The fields also go into the
 * `fault.injected` event, so keep them identifying and short (never message bodies).
 */
export interface FaultOperation {
  agent_id: string | null;
  fields: Readonly<Record<string, OperationField>>;
}

/** A fault that hit an operation: what the call site must make happen. */
export interface StruckFault {
  fault_id: string;
  target: FaultTarget;
  effect: FaultEffect;
  /** Service time a `delay` adds, in milliseconds (0 for other effects). */
  delay_ms: number;
  /** The code a `fail` carries (the target's default when none was given), or null. */
  error_code: string | null;
}

/** A decision taken without writing, to be recorded later ({@link Faults.record}). */
export interface FaultChoice {
  struck: StruckFault;
  target: FaultTarget;
  operation: FaultOperation;
}

/**
 * The fault language's side that port call sites and port decorators consult (the control plane
 * manages the faults through `FaultService`). Faults live in the store, hits are drawn from the
 * seeded random port, and every hit appends a `fault.injected` event.
 */
export interface Faults {
  /** Whether any active fault targets `target` (a cheap check before building an operation). */
  armed(view: StoreView, target: FaultTarget): Promise<boolean>;
  /** Whether any active fault is set at all, whatever its target. */
  anyArmed(view: StoreView): Promise<boolean>;
  /** Inside a transaction: the fault that hits the operation, recorded in `tx` with its event; null when none does. */
  strike(tx: StoreTransaction, target: FaultTarget, operation: FaultOperation): Promise<StruckFault | null>;
  /** Outside any transaction: the same, recorded in a transaction of its own. */
  strikeNow(target: FaultTarget, operation: FaultOperation): Promise<StruckFault | null>;
  /**
   * Decides without writing (for a transaction that is about to be rolled back because of the
   * answer); the caller records the choice afterwards with {@link Faults.record}.
   */
  choose(view: StoreView, target: FaultTarget, operation: FaultOperation): Promise<FaultChoice | null>;
  /** Records a choice taken by {@link Faults.choose}: its hit and its event. */
  record(choice: FaultChoice): Promise<void>;
}

/** Injection token of {@link Faults}. */
export const Faults = Symbol.for('agent-services/Faults') as ServiceIdentifier<Faults>;
