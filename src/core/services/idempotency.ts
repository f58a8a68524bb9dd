import { inject, injectable } from '../shared/di.js';
import { Clock } from '../ports/clock.js';
import { Store } from '../ports/store.js';
import { ApiError } from '../shared/api-error.js';
import { DAY_MS } from '../shared/time.js';

const COLLECTION = 'idempotency';

/** How long a key is remembered, in service time. */
export const IDEMPOTENCY_TTL_MS = DAY_MS;

/** Longest accepted `Idempotency-Key`. */
export const IDEMPOTENCY_KEY_MAX = 255;

/** A stored outcome to replay. */
export interface StoredOutcome {
  status: number;
  body: unknown;
}

interface IdempotencyRecord extends StoredOutcome {
  fingerprint: string;
  created_ms: number;
}

/** What {@link IdempotencyKeys.begin} decided. */
export type IdempotencyDecision = { kind: 'replay'; outcome: StoredOutcome } | { kind: 'proceed'; finish: (outcome: StoredOutcome) => Promise<void>; abandon: () => void };

/**
 * The Idempotency-Key layer of DECISIONS.md, scoped per caller: a repeat with the same request
 * replays the stored outcome, a different request under the same key is a conflict, a repeat
 * while the first still runs is refused, and keys expire after 24 hours of service time.
 */
@injectable()
export class IdempotencyKeys {
  private readonly inFlight = new Set<string>();

  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /**
   * Claims `key` for a request identified by `fingerprint`.
   * @throws ApiError 409 idempotency_conflict, 409 idempotency_key_in_use
   */
  begin(scope: string, key: string, fingerprint: string): IdempotencyDecision {
    const id = `${scope}:${key}`;
    if (this.inFlight.has(id)) {
      throw new ApiError('idempotency_key_in_use', 'a request with this Idempotency-Key is still being processed');
    }
    const stored = this.store.view.get<IdempotencyRecord>(COLLECTION, id);
    const live = stored && this.clock.now() < stored.created_ms + IDEMPOTENCY_TTL_MS ? stored : undefined;
    if (live) {
      if (live.fingerprint !== fingerprint) {
        throw new ApiError('idempotency_conflict', 'this Idempotency-Key was used with a different request');
      }
      return { kind: 'replay', outcome: { status: live.status, body: live.body } };
    }
    this.inFlight.add(id);
    return {
      kind: 'proceed',
      abandon: () => void this.inFlight.delete(id),
      finish: async (outcome) => {
        try {
          const record: IdempotencyRecord = { fingerprint, created_ms: this.clock.now(), status: outcome.status, body: outcome.body ?? null };
          await this.store.transaction((tx) => {
            if (tx.get(COLLECTION, id)) tx.update(COLLECTION, id, record);
            else tx.insert(COLLECTION, id, record, scope);
          });
        } finally {
          this.inFlight.delete(id);
        }
      },
    };
  }
}
