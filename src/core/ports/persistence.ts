import type { ServiceIdentifier } from '../shared/di.js';

/**
 * Durable home of a runtime's state between runs. `save` must be atomic: after a crash at any
 * moment, `load` returns either the previous state or the new one, never a torn mix.
 */
export interface Persistence {
  /** The last saved state, or undefined when nothing was saved yet. */
  load(): Promise<unknown>;
  /** Replaces the saved state. */
  save(state: unknown): Promise<void>;
}

/** Injection token of {@link Persistence}. */
export const Persistence = Symbol.for('agent-services/Persistence') as ServiceIdentifier<Persistence>;
