import { inject, injectable } from '../shared/di.js';
import { Clock } from '../ports/clock.js';
import { Store, type ClaimRelease, type StoreTransaction } from '../ports/store.js';
import { ApiError } from '../shared/api-error.js';
import { DAY_MS } from '../shared/time.js';

const COLLECTION = 'idempotency';
/** The partition of records kept in insertion order, oldest first: the order they expire in. */
const PARTITION = 'k';
/** Records of worlds written before the partition (format 1 databases): swept the old way until none is left. */
const LEGACY_PARTITION = '';
/**
 * The expiry index of earlier versions (a `{id, created_ms}` row per record): no longer written.
 * Rows a world still holds are removed as new records arrive ({@link LEGACY_EXPIRY_PER_WRITE} a write).
 */
const LEGACY_EXPIRY = 'idempotency_expiry';
/** Expired records each sweep removes at most: the table stays near one day of keys. */
const SWEEP_PER_WRITE = 2;
/** Rows of the old expiry index each sweep removes at most. */
const LEGACY_EXPIRY_PER_WRITE = 16;

/** How long a key is remembered, in service time. */
export const IDEMPOTENCY_TTL_MS = DAY_MS;

/** Longest accepted `Idempotency-Key`. */
export const IDEMPOTENCY_KEY_MAX = 255;

/** A stored outcome to replay. */
export interface StoredOutcome {
  status: number;
  body: unknown;
  /** Headers the answer carried beyond the JSON (`Retry-After` on a 429), replayed with it. */
  headers?: Readonly<Record<string, string>>;
}

interface IdempotencyRecord extends StoredOutcome {
  /** `scope:key`, the record's own id. */
  id: string;
  fingerprint: string;
  created_ms: number;
}

/** A key claimed for one request; its record is written inside the request's durable unit. */
export interface ClaimedKey {
  kind: 'proceed';
  /** Writes the outcome under the key in `tx` (nothing for 400, 401 and 504, which are not stored). */
  settle(tx: StoreTransaction, outcome: StoredOutcome): Promise<void>;
  /**
   * Ends the claim; a repeat is then answered from the record (or runs again if none was written).
   * `durable`: the unit that settled it committed, so a record it wrote is there for any repeat.
   * Answers what to wait for before the request is answered: the claim's end across processes
   * when no durable record replays a repeat (so a retry finds the key free), else nothing.
   */
  release(durable?: boolean): Promise<void> | undefined;
}

/** What {@link IdempotencyKeys.begin} decided. */
export type IdempotencyDecision = { kind: 'replay'; outcome: StoredOutcome } | ClaimedKey;

/** A claim asked for ahead of its request's checks ({@link IdempotencyKeys.ahead}). */
export interface ClaimAhead {
  /** The scope it was asked for under. */
  scope: string;
  /** Decides as {@link IdempotencyKeys.begin} would (once). @throws as begin */
  decide(fingerprint: string): Promise<IdempotencyDecision>;
  /** Gives the claim back (the request ended before its decision), resolving once it is; nothing once decided. */
  abandon(): Promise<void>;
}

/** A claim across processes and the record read under it. */
type SharedClaim = { release: ClaimRelease | undefined; record: IdempotencyRecord | undefined };

/**
 * The Idempotency-Key layer of DECISIONS.md, scoped per caller: a repeat with the same request
 * replays the stored outcome, a different request under the same key is a conflict, a repeat
 * while the first still runs is refused, and keys expire after 24 hours of service time.
 *
 * The outcome is recorded in the same durable unit as the request's effect ({@link within}), so
 * after a crash either both exist (a retry replays) or neither does (a retry runs once).
 */
@injectable()
export class IdempotencyKeys {
  private readonly inFlight = new Set<string>();
  /**
   * Service time before which no stored record expires, as the last sweep found it (the oldest
   * record's expiry: the others were written after it): writes until then need no sweep. Learnt
   * when a sweep's transaction commits; forgotten at a restore ({@link restored}).
   */
  private quietUntil = Number.NEGATIVE_INFINITY;

  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /**
   * Claims `key` for a request identified by `fingerprint`.
   * @throws ApiError 409 idempotency_conflict, 409 idempotency_key_in_use
   */
  async begin(scope: string, key: string, fingerprint: string): Promise<IdempotencyDecision> {
    const id = `${scope}:${key}`;
    this.refuseInFlight(id);
    if (this.store.shared) return this.beginShared(id, fingerprint);
    const stored = await this.store.view.get<IdempotencyRecord>(COLLECTION, id);
    // Asked again after the read: a request with the same key may have claimed it meanwhile.
    this.refuseInFlight(id);
    const live = this.liveOf(stored);
    if (live) return this.replayOf(live, fingerprint);
    this.inFlight.add(id);
    // A record the read did not find may still be there at the settle (a restore that ran in
    // between brought it back): the settle looks for one.
    return this.proceed(id, fingerprint, undefined, true);
  }

  /**
   * The key claimed: `releaseShared` ends the claim across processes (if any); `mayExist` false
   * when the claim's own read found no record, so that settling need not look for one to replace
   * (nobody writes the record without the claim).
   */
  private proceed(id: string, fingerprint: string, releaseShared: ClaimRelease | undefined, mayExist: boolean): ClaimedKey {
    let recorded = false;
    return {
      kind: 'proceed',
      release: (durable = false) => {
        this.inFlight.delete(id);
        if (!releaseShared) return undefined;
        // With its record durable, a repeat replays whether or not the claim is still held: the
        // claim may then end with the next claims statement instead of one of its own. Without
        // one (a 400, a failed unit), a retry must find the key free once this one is answered.
        const lazily = durable && recorded;
        const releasing = releaseShared({ lazily });
        return lazily ? undefined : releasing;
      },
      settle: async (tx, outcome) => {
        // A 504 kept nothing of the request (DECISIONS.md), so a retry with the key runs it again.
        if (outcome.status === 400 || outcome.status === 401 || outcome.status === 504) return;
        recorded = true;
        const now = this.clock.now();
        // An expired record of the same key makes way: the new one goes to the newest position.
        if (mayExist) await tx.remove(COLLECTION, id);
        const headers = outcome.headers && Object.keys(outcome.headers).length > 0 ? { headers: { ...outcome.headers } } : {};
        const record: IdempotencyRecord = { id, fingerprint, created_ms: now, status: outcome.status, body: outcome.body ?? null, ...headers };
        await tx.insert(COLLECTION, id, record, PARTITION);
        if (now >= this.quietUntil) await this.sweep(tx, now);
      },
    };
  }

  /** The record if its day has not passed. */
  private liveOf(stored: IdempotencyRecord | undefined): IdempotencyRecord | undefined {
    return stored && this.clock.now() < stored.created_ms + IDEMPOTENCY_TTL_MS ? stored : undefined;
  }

  /** The replay of a live record. @throws ApiError 409 idempotency_conflict for another request */
  private replayOf(live: IdempotencyRecord, fingerprint: string): IdempotencyDecision {
    if (live.fingerprint !== fingerprint) {
      throw new ApiError('idempotency_conflict', 'this Idempotency-Key was used with a different request');
    }
    return { kind: 'replay', outcome: { status: live.status, body: live.body, ...(live.headers ? { headers: live.headers } : {}) } };
  }

  /**
   * On a store other processes serve too: claims the key across them and reads its record in the
   * same round trip. Read under the claim, a live record replays (its writer is done) and none
   * means this request runs; a claim held elsewhere is a replay when the record is already there
   * (a repeat that is replaying), else 409 (the first request still runs).
   * @throws ApiError 409 idempotency_key_in_use when another process holds the key
   */
  private beginShared(id: string, fingerprint: string): Promise<IdempotencyDecision> {
    return this.decideShared(id, fingerprint, this.claimShared(id));
  }

  /** Marks the key in flight here and asks for its claim across processes, with its record. */
  private claimShared(id: string): Promise<SharedClaim> {
    this.inFlight.add(id);
    return this.store.shared!.claimReading<IdempotencyRecord>(`idempotency:${id}`, COLLECTION, id);
  }

  /** {@link beginShared}'s decision, once the claim (asked for by the caller, the key already in flight here) is answered. */
  private async decideShared(id: string, fingerprint: string, claiming: Promise<SharedClaim>): Promise<IdempotencyDecision> {
    let release: ClaimRelease | undefined;
    try {
      const claimed = await claiming;
      release = claimed.release;
      const live = this.liveOf(claimed.record);
      if (!release && !live) throw new ApiError('idempotency_key_in_use', 'a request with this Idempotency-Key is still being processed');
      if (!live) return this.proceed(id, fingerprint, release, claimed.record !== undefined);
      await release?.();
      this.inFlight.delete(id);
      return this.replayOf(live, fingerprint);
    } catch (error) {
      this.inFlight.delete(id);
      await release?.();
      throw error;
    }
  }

  /** Whether {@link ahead} asks for claims: on a store other processes serve too, where a claim is a round trip. */
  get claimsAhead(): boolean {
    return this.store.shared !== undefined;
  }

  /**
   * On a store other processes serve too, asks for the claim of `key` under `scope` now, before
   * the request is known to be valid (its API key still being read, say), so that the claim
   * travels in the same statement as that read: {@link ClaimAhead.decide} then decides as
   * {@link begin}, and {@link ClaimAhead.abandon} gives the claim back when the request ends
   * before (a 401 or a 400). Undefined where there is nothing to save (a store of one process),
   * or when the key is in flight here already ({@link begin} then answers 409, in its turn).
   */
  ahead(scope: string, key: string): ClaimAhead | undefined {
    if (!this.claimsAhead) return undefined;
    const id = `${scope}:${key}`;
    if (this.inFlight.has(id)) return undefined;
    const claiming = this.claimShared(id);
    // Seen by decide or abandon, whichever comes.
    claiming.catch(() => undefined);
    let ended = false;
    return {
      scope,
      decide: (fingerprint) => {
        ended = true;
        return this.decideShared(id, fingerprint, claiming);
      },
      abandon: async () => {
        if (ended) return;
        ended = true;
        try {
          await (await claiming).release?.();
        } catch {
          // The claim's statement failed: nothing was taken, or the connection took it along.
        } finally {
          this.inFlight.delete(id);
        }
      },
    };
  }

  /**
   * Runs `execute` (which answers, never throws) as one durable unit whose last transaction
   * writes the record of the key `claimed()` returns by then, if any, and releases that claim.
   * Resolves once the effect and the record are durable.
   * @throws the store's failure to commit (nothing of the request stays)
   */
  async within<R extends StoredOutcome>(execute: () => Promise<R>, claimed: () => ClaimedKey | undefined): Promise<R> {
    let durable = false;
    try {
      const result = await this.store.unit(execute, async (tx, outcome) => {
        await claimed()?.settle(tx, outcome);
      });
      durable = true;
      return result;
    } finally {
      const releasing = claimed()?.release(durable);
      if (releasing) await releasing;
    }
  }

  /**
   * Removes the oldest records whose day has passed (a few per new record), and what is left of
   * earlier formats. When the oldest record left is still within its day and nothing of the
   * earlier formats remains, no record expires before it does: writes until then skip the sweep.
   */
  private async sweep(tx: StoreTransaction, now: number): Promise<void> {
    const oldest = await tx.page<IdempotencyRecord>(COLLECTION, { partition: PARTITION, order: 'oldest', limit: SWEEP_PER_WRITE });
    let quietUntil: number | undefined;
    for (const { record } of oldest.items) {
      if (now < record.created_ms + IDEMPOTENCY_TTL_MS) {
        quietUntil = record.created_ms + IDEMPOTENCY_TTL_MS;
        break;
      }
      await tx.remove(COLLECTION, record.id);
    }
    // Counts are kept by the store, so these cost next to nothing once the old rows are gone.
    if (await this.sweepLegacy(tx, now)) quietUntil = undefined;
    if (quietUntil !== undefined) {
      const until = quietUntil;
      tx.afterCommit(() => {
        this.quietUntil = until;
      });
    }
  }

  /** Removes what earlier formats left (old expiry rows, and expired records of format 1); answers whether any is left. */
  private async sweepLegacy(tx: StoreTransaction, now: number): Promise<boolean> {
    let left = false;
    if ((await tx.count(LEGACY_EXPIRY, '')) > 0) {
      const rows = await tx.page<{ id: string }>(LEGACY_EXPIRY, { partition: '', order: 'oldest', limit: LEGACY_EXPIRY_PER_WRITE });
      for (const { record } of rows.items) await tx.remove(LEGACY_EXPIRY, record.id);
      left = rows.hasMore;
    }
    if ((await tx.count(COLLECTION, LEGACY_PARTITION)) === 0) return left;
    const legacy = await tx.page<IdempotencyRecord>(COLLECTION, { partition: LEGACY_PARTITION, order: 'oldest', limit: SWEEP_PER_WRITE });
    for (const { record } of legacy.items) {
      if (now < record.created_ms + IDEMPOTENCY_TTL_MS) break;
      await tx.remove(COLLECTION, record.id);
    }
    return true;
  }

  /** Forgets what the last sweep learnt: a restored world has other records (and maybe an earlier clock). */
  restored(): void {
    this.quietUntil = Number.NEGATIVE_INFINITY;
  }

  /** @throws ApiError 409 idempotency_key_in_use while a request with the key `id` still runs */
  private refuseInFlight(id: string): void {
    if (this.inFlight.has(id)) {
      throw new ApiError('idempotency_key_in_use', 'a request with this Idempotency-Key is still being processed');
    }
  }
}
