import { FAULTS } from '../../core/faults/fault.service.js';
import type { Store, StoreView } from '../../core/ports/store.js';

/**
 * How long a process trusts its answer on a store that other processes write too (ms): word of
 * their commits to the faults normally comes within a fraction of a second (a NOTIFY); this bounds
 * the answer when a word is lost (the listening connection dropped and came back meanwhile).
 */
const SHARED_MAX_AGE_MS = 500;

/** How late word of another process's commit to the faults may come (ms): the store batches it in one NOTIFY. */
const REMOTE_LATENCY_MS = 200;

/**
 * "Is any fault set?", as every API request asks it before it runs (request-context.ts), answered
 * from this process's memory: read from the store once, then kept until something may have
 * changed the faults. The owner calls {@link invalidate} when this process writes the fault set
 * (`FaultService.onWrite`: as a write is made, once applied, once durable), when the store was
 * replaced (a restore) and when another process committed to the faults (`onRemoteCommit`).
 *
 * A read that began before an invalidation still answers its callers (it is as fresh as a read
 * made without the cache) but is not kept: the generation it began in is gone. Requests that come
 * while a read is under way share it. On a shared store an answer is kept at most `maxAgeMs`.
 *
 * What a stale answer can do: only whether a request carries its context (route and agent for
 * `match`, and `persistence.write`). Port faults are decided inside transactions from the stored
 * faults themselves. On the memory and SQLite stores every write of the faults is this process's,
 * so a fault armed applies to the next request at once, as when every request read the store.
 * One case is not followed: a SQLite group commit that fails (an I/O error) after a request's
 * transaction counted a fault down undoes the count while the gate may keep what it read of it
 * before; the next write of the faults (any hit, any control-plane change) or a restore corrects it.
 */
export class FaultsGate {
  /** The kept answer, or undefined when it must be read. */
  private known: boolean | undefined;
  /** When the kept answer's read began (`now()`), for `maxAgeMs`. */
  private knownSince = 0;
  /** The read under way in the current generation, shared by the requests that come meanwhile. */
  private reading: Promise<boolean> | undefined;
  private generation = 0;

  constructor(
    /** Reads whether any fault is set from the store. */
    private readonly read: () => Promise<boolean>,
    /** How long an answer is kept at most (ms); undefined: until invalidated. */
    private readonly maxAgeMs?: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Whether any fault is set: at once when known, else once read (a promise). */
  armed(): boolean | Promise<boolean> {
    const known = this.known;
    if (known !== undefined && (this.maxAgeMs === undefined || this.now() - this.knownSince < this.maxAgeMs)) return known;
    this.reading ??= this.fill();
    return this.reading;
  }

  /** Forgets the answer, and any read under way is not kept: the next request reads again. */
  invalidate(): void {
    this.generation++;
    this.known = undefined;
    this.reading = undefined;
  }

  private fill(): Promise<boolean> {
    const generation = this.generation;
    const since = this.maxAgeMs === undefined ? 0 : this.now();
    return this.read().then(
      (armed) => {
        if (generation === this.generation) {
          this.known = armed;
          this.knownSince = since;
          this.reading = undefined;
        }
        return armed;
      },
      (error: unknown) => {
        // Not kept: the next request tries again (the store may be back).
        if (generation === this.generation) this.reading = undefined;
        throw error;
      },
    );
  }
}

/** What the gate needs of the fault service (`FaultService`). */
export interface FaultsSource {
  /** Reads whether any fault is active. */
  anyArmed(view: StoreView): Promise<boolean>;
  /** Calls `listener` whenever this process writes the fault set. */
  onWrite(listener: () => void): void;
}

/**
 * A gate over `faults` in `store`, kept current: forgotten on every write of the faults by this
 * process and, on a store other processes share, on word of their commits to the faults (at most
 * 200 ms late, a batched NOTIFY) and after `maxAgeMs` (default {@link SHARED_MAX_AGE_MS}; none on
 * a store of one process). The owner forgets it too when the store is replaced (a restore).
 */
export function followFaults(faults: FaultsSource, store: Store, maxAgeMs: number | undefined = store.shared ? SHARED_MAX_AGE_MS : undefined): FaultsGate {
  const gate = new FaultsGate(() => faults.anyArmed(store.view), maxAgeMs);
  faults.onWrite(() => gate.invalidate());
  store.shared?.onRemoteCommit(() => gate.invalidate(), { collections: [FAULTS], latencyMs: REMOTE_LATENCY_MS });
  return gate;
}
