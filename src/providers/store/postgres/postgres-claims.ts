import { setTimeout as delay } from 'node:timers/promises';
import postgres, { type Options, type Sql } from 'postgres';
import type { ClaimRelease } from '../../../core/ports/store.js';
import { GroupedBatches, RIDE_WAIT_MS } from './grouped-batches.js';
import { onceLockKey } from './record-keys.js';
import { isUnreachable, translate } from './postgres-errors.js';

/** Advisory-lock namespace of claims. */
const CLAIMS = 'agent_services_claims';

/**
 * Options of the claims' pool: one connection, kept as long as it lives (its session holds the
 * claims); no array types to fetch when it connects (the claims send text).
 */
const CLAIMS_POOL = { max: 1, max_lifetime: 0, idle_timeout: 0, fetch_types: false } as const;

/**
 * The claims of one process on a PostgreSQL world ({@link SharedStore.claim}): session advisory
 * locks on the one connection of a pool of their own ({@link CLAIMS_POOL}), held until released
 * or the process dies (its connection closes, and the claims with it). The pool connects again
 * after its connection broke; a connection reserved from a shared pool would not (postgres.js
 * 3.4 throws outside any promise when one is used after it closed, which ended the process). A
 * session may take its own lock twice, so the names this process holds are kept here and a second
 * caller of the same process is refused before the database: a claim means one caller in the world.
 *
 * Every claim (with its read) and every release is ops of `agent_services_batch` on that
 * connection, grouped (GroupedBatches): a claim and its read are one statement, and the claims
 * and releases of concurrent requests share statements, with the process's point reads made
 * outside units ({@link read}).
 */
export class PostgresClaims {
  private pool: Sql | undefined;
  private batches: GroupedBatches | undefined;
  /** Counts the sessions that ended: a claim of an ended one went with it. */
  private session = 0;
  private readonly held = new Set<string>();
  private closed = false;

  /**
   * @param url the database; the pool is opened at the first claim, with `options` beside its own
   * @param assertOpen throws once the store closed
   * @param rideWaitMs longest a claim released lazily waits for a statement to end with
   */
  constructor(
    private readonly url: string,
    private readonly options: Options<Record<string, never>>,
    private readonly assertOpen: () => void,
    private readonly rideWaitMs = RIDE_WAIT_MS,
  ) {}

  /** Takes the named claim, or answers undefined when another caller (here or elsewhere) holds it. */
  async claim(name: string): Promise<ClaimRelease | undefined> {
    return (await this.claimReading(name)).release;
  }

  /**
   * {@link claim}, with the read of a record (`read`) in the same statement, behind the lock: the
   * batch function reads it in a snapshot of its own, taken once the lock was decided, so the
   * read sees what was committed by then (a holder's record written before it let go).
   */
  async claimReading<T>(name: string, read?: { collection: string; id: string }): Promise<{ release: ClaimRelease | undefined; record: T | undefined }> {
    const heldHere = this.held.has(name);
    if (heldHere && !read) return { release: undefined, record: undefined };
    if (!heldHere) this.held.add(name);
    const key = String(onceLockKey(CLAIMS, name));
    const ops: unknown[][] = [];
    if (!heldHere) ops.push(['st', key]);
    if (read) ops.push(['g', read.collection, read.id]);
    const batches = this.channel();
    let answers: Awaited<ReturnType<GroupedBatches['send']>>;
    try {
      answers = await batches.send(ops);
    } catch (error) {
      if (!heldHere) await this.abandon(batches, key, name, error);
      throw translate(error);
    }
    // Counted once answered: the session that ran the statement, or (had it closed meanwhile) a
    // later one, which cannot hold the lock for another caller here (the name stays in `held`
    // until this release is done), so its unlock changes nothing.
    const session = this.session;
    const found = read ? answers.at(-1)![0]?.record : undefined;
    const record = found ? (JSON.parse(found) as T) : undefined;
    if (heldHere || answers[0]![0]?.n !== '1') {
      if (!heldHere) this.held.delete(name);
      return { release: undefined, record };
    }
    let released = false;
    const release: ClaimRelease = async (options) => {
      if (released) return;
      released = true;
      // A session that ended took the lock with it.
      if (this.session === session) await (options?.lazily ? batches.ride([['su', key]]) : batches.send([['su', key]])).catch(() => undefined);
      // Only now may a caller of this process take it again: before the unlock, the database
      // would count it as this session's second hold.
      this.held.delete(name);
    };
    return { release, record };
  }

  /**
   * A record and its version as committed, read over this connection with whatever else waits:
   * point reads made outside units (an API key, say) share statements with each other and with
   * the claims of concurrent requests.
   */
  async read(collection: string, id: string): Promise<{ text: string; version: number } | undefined> {
    let answers: Awaited<ReturnType<GroupedBatches['send']>>;
    try {
      answers = await this.channel().send([['g', collection, id]]);
    } catch (error) {
      throw translate(error);
    }
    const row = answers[0]![0];
    return row ? { text: row.record!, version: row.version! } : undefined;
  }

  /** The connection's grouped statements, opened at first use (never once the store closed). */
  private channel(): GroupedBatches {
    if (this.closed) throw new Error('the store is closed');
    this.pool ??= postgres(this.url, { ...this.options, ...CLAIMS_POOL, onclose: () => void this.session++ });
    return (this.batches ??= new GroupedBatches(this.pool, this.rideWaitMs));
  }

  /**
   * A claim whose statement failed, so it may or may not have been taken. A connection that broke
   * (the database went away) took its locks with it. Otherwise the lock is given back, in case it
   * was taken (a session keeps its advisory locks through a failed statement), before the name
   * may be claimed here again.
   */
  private async abandon(batches: GroupedBatches, key: string, name: string, error: unknown): Promise<void> {
    if (!isUnreachable(error)) await batches.send([['su', key]]).catch(() => undefined);
    this.held.delete(name);
  }

  /** Takes the named claim, polling (5 ms doubling to 100 ms) while another caller holds it. */
  async awaitClaim(name: string): Promise<ClaimRelease> {
    for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
      this.assertOpen();
      const release = await this.claim(name);
      if (release) return release;
      await delay(wait);
    }
  }

  /** Closes the connection (the store is closing): every claim of this process ends. */
  async close(): Promise<void> {
    this.closed = true;
    await this.pool?.end({ timeout: 5 });
  }
}
