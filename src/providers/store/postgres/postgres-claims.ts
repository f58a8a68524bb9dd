import type { ReservedSql, Sql } from 'postgres';
import type { ClaimRelease } from '../../../core/ports/store.js';
import { lockKey } from './record-keys.js';
import { translate } from './postgres-errors.js';

/** Advisory-lock namespace of claims. */
const CLAIMS = 'agent_services_claims';

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The claims of one process on a PostgreSQL world ({@link SharedStore.claim}): session advisory
 * locks on one reserved connection, held until released or the process dies (its connection
 * closes, and the claims with it). A session may take its own lock twice, so the names this
 * process holds are kept here and a second caller of the same process is refused before the
 * database: a claim means one caller in the world.
 */
export class PostgresClaims {
  private connection: Promise<ReservedSql> | undefined;
  private readonly held = new Set<string>();

  /** @param control the small pool the connection is reserved from; `assertOpen` throws once the store closed */
  constructor(
    private readonly control: Sql,
    private readonly assertOpen: () => void,
  ) {}

  /** Takes the named claim, or answers undefined when another caller (here or elsewhere) holds it. */
  async claim(name: string): Promise<ClaimRelease | undefined> {
    return (await this.claimReading(name)).release;
  }

  /**
   * {@link claim}, with the read of a record (`read`) sent right behind the lock on the same
   * connection, in the same round trip: the server runs them in order, so the read sees what was
   * committed once the claim was decided.
   */
  async claimReading<T>(name: string, read?: { collection: string; id: string }): Promise<{ release: ClaimRelease | undefined; record: T | undefined }> {
    const heldHere = this.held.has(name);
    if (heldHere && !read) return { release: undefined, record: undefined };
    if (!heldHere) this.held.add(name);
    const key = String(lockKey(CLAIMS, name));
    const reserving = (this.connection ??= this.control.reserve());
    let conn: ReservedSql;
    let record: T | undefined;
    try {
      conn = await reserving;
      const [taken, rows] = await Promise.all([
        heldHere ? false : conn`SELECT pg_try_advisory_lock(${key}::bigint) AS ok`.then(([row]) => Boolean(row?.ok)),
        read ? conn`SELECT record FROM agent_services_records WHERE collection = ${read.collection} AND id = ${read.id}` : undefined,
      ]);
      if (rows?.[0]) record = JSON.parse(rows[0].record as string) as T;
      if (!taken) {
        if (!heldHere) this.held.delete(name);
        return { release: undefined, record };
      }
    } catch (error) {
      if (!heldHere) this.held.delete(name);
      // The connection could not be had or broke (the database went away, and its claims with it):
      // the next claim reserves a new one instead of failing forever on this one.
      if (this.connection === reserving) this.connection = undefined;
      void reserving.then((broken) => broken.release()).catch(() => undefined);
      throw translate(error);
    }
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      await conn`SELECT pg_advisory_unlock(${key}::bigint)`.catch(() => undefined);
      // Only now may a caller of this process take it again: before the unlock, the database
      // would count it as this session's second hold.
      this.held.delete(name);
    };
    return { release, record };
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

  /** Gives the connection back (the store is closing): every claim of this process ends. */
  async close(): Promise<void> {
    if (this.connection) (await this.connection.catch(() => undefined))?.release();
  }
}
