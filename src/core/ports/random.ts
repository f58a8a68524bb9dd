import type { ServiceIdentifier } from '../shared/di.js';
import type { IdKind } from '../shared/ids.js';

/**
 * The only source of randomness in the service. Simulation seeds it so a run repeats exactly;
 * `state`/`restore` let a snapshot continue the same sequence.
 */
export interface Random {
  /** `n` random bytes. */
  bytes(n: number): Uint8Array;
  /** A new identifier with the DESIGN.md prefix of `kind`, e.g. `agt_3fK9...`. */
  id(kind: IdKind): string;
  /** A secret of `length` unbiased base62 characters (API keys, card numbers' seeds). */
  secret(length: number): string;
  /** The generator's state, for snapshots. */
  state(): string;
  /** Continues from a state returned by {@link Random.state}. */
  restore(state: string): void;
}

/** Injection token of {@link Random}. */
export const Random = Symbol.for('agent-services/Random') as ServiceIdentifier<Random>;
