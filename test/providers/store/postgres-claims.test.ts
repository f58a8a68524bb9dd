// The claims of a PostgreSQL world (the Idempotency-Key's, a job's, a webhook delivery's): one
// caller in the world at a time, a claim and the read behind it as one statement whose read sees
// what was committed once the lock was decided, and the claims and releases of concurrent
// callers of a process sharing statements.
import postgres, { type Sql } from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresClaims } from '../../../src/providers/store/postgres/postgres-claims.js';
import { RUN_BATCH } from '../../../src/providers/store/postgres/batch-function.js';
import { migrate, SCHEMA_VERSION } from '../../../src/providers/store/postgres/postgres-schema.js';
import { ApiError } from '../../../src/core/shared/api-error.js';
import { freshDatabase, postgresSkipReason } from '../../support/postgres.js';

const skip = postgresSkipReason();
if (skip) console.log(`postgres-claims: skipped, ${skip}`);

/** A "process": its claims over a pool of its own, and the statements that pool sent. */
interface Process {
  claims: PostgresClaims;
  statements: string[];
}

/** Polls `condition` until it holds (a wait for another session's state, not a timing). */
async function waitUntil(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe.skipIf(skip !== null)('PostgreSQL claims', () => {
  const pools: Sql[] = [];
  const opened: PostgresClaims[] = [];
  afterEach(async () => {
    await Promise.all([...opened.splice(0).map((claims) => claims.close()), ...pools.splice(0).map((pool) => pool.end({ timeout: 1 }))]);
  });

  function pool(url: string): Sql {
    const sql = postgres(url, { onnotice: () => {}, max: 3 });
    pools.push(sql);
    return sql;
  }

  /** Claims as a store makes them, over a pool whose statements are counted. */
  function processOn(url: string, rideWaitMs?: number): Process {
    const statements: string[] = [];
    const claims = new PostgresClaims(url, { onnotice: () => {}, debug: (_c: number, query: string) => void statements.push(query) }, () => {}, rideWaitMs);
    opened.push(claims);
    return { claims, statements };
  }

  /** Inserts a record as the idempotency layer would (its row and JSON text). */
  async function insertRecord(sql: Sql, collection: string, id: string, record: unknown): Promise<void> {
    await sql`INSERT INTO agent_services_records (collection, id, part, position, record) VALUES (${collection}, ${id}, '', 1, ${JSON.stringify(record)})`;
  }

  it('claims and reads in one statement, and releases in one', async () => {
    const url = await freshDatabase();
    const a = processOn(url);
    await insertRecord(pool(url), 'idempotency', 'k1', { status: 201 });
    const claimed = await a.claims.claimReading<{ status: number }>('idempotency:k1', { collection: 'idempotency', id: 'k1' });
    expect(claimed.record).toEqual({ status: 201 });
    expect(claimed.release).toBeDefined();
    expect(a.statements).toHaveLength(1);
    // A second caller here while it is held: the record, no claim (the read alone is sent).
    const second = await a.claims.claimReading<{ status: number }>('idempotency:k1', { collection: 'idempotency', id: 'k1' });
    expect(second).toEqual({ release: undefined, record: { status: 201 } });
    expect(a.statements).toHaveLength(2);
    await claimed.release!();
    expect(a.statements).toHaveLength(3);
    // The claim with its read goes through the batch function (its read in a snapshot of its
    // own); a lone read or release as a plain statement, which costs the server less.
    expect(a.statements[0]).toContain('agent_services_batch');
    expect(a.statements.slice(1).join('\n')).not.toContain('agent_services_batch');
    // A claim without a read is one statement too.
    const again = await a.claims.claim('idempotency:k1');
    expect(again).toBeDefined();
    expect(a.statements).toHaveLength(4);
    await again!();
  });

  it('sends the claims and releases of callers that come at once as shared statements, each answered as if alone', async () => {
    const url = await freshDatabase();
    const a = processOn(url);
    const b = processOn(url);
    const sql = pool(url);
    for (let n = 0; n < 20; n += 2) await insertRecord(sql, 'idempotency', `k${n}`, { n });
    const names = Array.from({ length: 20 }, (_, n) => n);
    const claimed = await Promise.all(names.map((n) => a.claims.claimReading<{ n: number }>(`idempotency:k${n}`, { collection: 'idempotency', id: `k${n}` })));
    expect(claimed.map((c) => c.record?.n)).toEqual(names.map((n) => (n % 2 === 0 ? n : undefined)));
    expect(claimed.every((c) => c.release !== undefined)).toBe(true);
    expect(a.statements.length).toBeLessThanOrEqual(2);
    // Held by a: refused to b, whatever b's statements carry together.
    const refused = await Promise.all(names.map((n) => b.claims.claim(`idempotency:k${n}`)));
    expect(refused.every((release) => release === undefined)).toBe(true);
    expect(b.statements.length).toBeLessThanOrEqual(2);
    const before = a.statements.length;
    await Promise.all(claimed.map((c) => c.release!()));
    expect(a.statements.length - before).toBeLessThanOrEqual(2);
    // All given back: b takes them all.
    const taken = await Promise.all(names.map((n) => b.claims.claim(`idempotency:k${n}`)));
    expect(taken.every((release) => release !== undefined)).toBe(true);
    await Promise.all(taken.map((release) => release!()));
  });

  it('gives a name claimed at once by two processes, and twice in one, to exactly one caller', async () => {
    const url = await freshDatabase();
    const a = processOn(url);
    const b = processOn(url);
    for (let round = 0; round < 10; round++) {
      const name = `delivery:${round}`;
      const attempts = await Promise.all([a.claims.claim(name), b.claims.claim(name), a.claims.claim(name), b.claims.claim(name)]);
      expect(attempts.filter((release) => release !== undefined)).toHaveLength(1);
      await Promise.all(attempts.map((release) => release?.()));
    }
  });

  it('lets a release ride with the claims sent behind it, and frees the name for this process only once done', async () => {
    const url = await freshDatabase();
    const a = processOn(url);
    const first = (await a.claims.claim('job:1'))!;
    // The release and a claim of another name, asked for in one turn: one statement.
    const before = a.statements.length;
    const [, other] = await Promise.all([first(), a.claims.claim('job:2')]);
    expect(a.statements.length - before).toBe(1);
    expect(other).toBeDefined();
    const again = await a.claims.claim('job:1');
    expect(again).toBeDefined();
    await Promise.all([again!(), other!()]);
  });

  it('ends a claim released lazily with the next claims statement, or on its own once its wait is over', async () => {
    const url = await freshDatabase();
    // A wait no test outlasts: only a statement sent for someone else can carry the release.
    const a = processOn(url, 3_600_000);
    const b = processOn(url);
    const first = await a.claims.claim('idempotency:lazy-1');
    const releasing = first!({ lazily: true });
    // No statement of its own: still held, here and for another process.
    expect(a.statements).toHaveLength(1);
    expect(await b.claims.claim('idempotency:lazy-1')).toBeUndefined();
    expect(await a.claims.claim('idempotency:lazy-1')).toBeUndefined();
    // The next claim of this process carries it.
    const second = await a.claims.claim('idempotency:lazy-2');
    await releasing;
    expect(a.statements).toHaveLength(2);
    const taken = await b.claims.claim('idempotency:lazy-1');
    expect(taken).toBeDefined();
    await taken!();
    await second!();
    // With a short wait and nothing else to go with, it goes by itself.
    const c = processOn(url, 1);
    const alone = await c.claims.claim('idempotency:lazy-3');
    await alone!({ lazily: true });
    expect(c.statements).toHaveLength(2);
    const again = await b.claims.claim('idempotency:lazy-3');
    expect(again).toBeDefined();
    await again!();
  });

  it('reads in a snapshot taken after the lock: a record committed while the statement ran, before the holder let go, is seen', async () => {
    const url = await freshDatabase();
    const gate = await pool(url).reserve();
    const holder = await pool(url).reserve();
    const [gateKey, claimKey] = ['4242', '4343'];
    await gate`SELECT pg_advisory_lock(${gateKey}::bigint)`;
    await holder`SELECT pg_advisory_lock(${claimKey}::bigint)`;
    // The claimant's statement starts (and with it the statement's snapshot), then waits for the
    // gate before its claim op: the claim and the read as the claims send them, behind one wait.
    const claimant = pool(url)
      .unsafe(RUN_BATCH, [
        JSON.stringify([
          ['l', [gateKey]],
          ['st', claimKey],
          ['g', 'idempotency', 'late'],
        ]),
      ])
      .then((rows) => rows as unknown as Array<{ i: number; record: string | null; n: string | null }>);
    const admin = pool(url);
    await waitUntil(async () => (await admin`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`)[0]!.n === 1);
    // Meanwhile the holder commits its record and lets go; then the gate opens.
    await insertRecord(admin, 'idempotency', 'late', { status: 200 });
    await holder`SELECT pg_advisory_unlock(${claimKey}::bigint)`;
    await gate`SELECT pg_advisory_unlock(${gateKey}::bigint)`;
    const rows = await claimant;
    expect(rows.find((row) => row.i === 1)?.n).toBe('1');
    expect(JSON.parse(rows.find((row) => row.i === 2)!.record!)).toEqual({ status: 200 });
    gate.release();
    holder.release();
  });

  it('answers 503 while the claims connection is broken, then claims again on a new one (the old one took its claims with it)', async () => {
    const url = await freshDatabase();
    const a = processOn(url);
    const b = processOn(url);
    const admin = pool(url);
    const held = (await a.claims.claim('job:held'))!;
    expect(await b.claims.claim('job:held')).toBeUndefined();
    // a's session: the one holding an advisory lock in this database.
    const [killed] = await admin`SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_locks
      WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
    expect(killed!.n).toBe(1);
    // Until the pool has connected again, a claim answers 503 (nothing taken), never anything else.
    let next: Awaited<ReturnType<PostgresClaims['claim']>>;
    for (let tries = 0; ; tries++) {
      const outcome = await a.claims.claim('job:other').then(
        (release) => ({ release }),
        (error: unknown) => ({ error }),
      );
      if ('release' in outcome) {
        next = outcome.release;
        break;
      }
      expect(outcome.error).toBeInstanceOf(ApiError);
      expect((outcome.error as ApiError).code).toBe('unavailable');
      expect(tries).toBeLessThan(50);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(next).toBeDefined();
    await next!();
    // The killed session took its lock along: b takes the name, and a's late release changes nothing.
    await held();
    const taken = await b.claims.claim('job:held');
    expect(taken).toBeDefined();
    await taken!();
  });

  it('gives the lock back when its statement failed after taking it, the connection still up', async () => {
    const url = await freshDatabase();
    const a = processOn(url);
    const b = processOn(url);
    const admin = pool(url);
    const blocker = await pool(url).reserve();
    // The records table locked: a's claim takes the lock, then its read waits, and is cancelled.
    await blocker`BEGIN`;
    await blocker`LOCK TABLE agent_services_records IN ACCESS EXCLUSIVE MODE`;
    const claiming = a.claims.claimReading('idempotency:stuck', { collection: 'idempotency', id: 'stuck' }).catch((error: unknown) => error);
    await waitUntil(async () => (await admin`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'relation' AND NOT granted`)[0]!.n === 1);
    expect((await b.claims.claim('idempotency:stuck')) === undefined).toBe(true);
    await admin`SELECT pg_cancel_backend(pid) FROM pg_locks WHERE locktype = 'relation' AND NOT granted`;
    const failed = await claiming;
    expect((failed as { code?: string }).code).toBe('57014');
    // The session is still up and gave the claim back: b takes it, and a may claim it again later.
    const taken = await b.claims.claim('idempotency:stuck');
    expect(taken).toBeDefined();
    await taken!();
    await blocker`COMMIT`;
    blocker.release();
    const again = await a.claims.claim('idempotency:stuck');
    expect(again).toBeDefined();
    await again!();
  });

  it('brings a version-2 database to version 4: the latest batch function, no index of (collection, position), keys compared bytewise', async () => {
    const url = await freshDatabase();
    const sql = pool(url);
    // A version-2 database: the tables of version 1, the batch function without the claim ops
    // (here: none at all, so that only a later step can bring it back).
    await sql`DROP FUNCTION agent_services_batch(jsonb)`;
    // Version 1's index of (collection, position), which version 3 drops.
    await sql`CREATE INDEX agent_services_records_order ON agent_services_records (collection, position)`;
    // Version 1's keys, under the database's default collation, which version 4 replaces.
    await sql.unsafe(`ALTER TABLE agent_services_records ALTER COLUMN collection TYPE text COLLATE "default",
      ALTER COLUMN id TYPE text COLLATE "default", ALTER COLUMN part TYPE text COLLATE "default"`);
    await sql`UPDATE agent_services_meta SET value = '2' WHERE key = 'schema_version'`;
    await sql`INSERT INTO agent_services_records (collection, id, part, position, record) VALUES ('agents', 'agt_1', '', 1, '{}')`;
    expect(await migrate(sql)).toBe(2);
    expect(await sql`SELECT indexname FROM pg_indexes WHERE indexname = 'agent_services_records_order'`).toHaveLength(0);
    const collations = await sql`SELECT a.attname, c.collname FROM pg_attribute a JOIN pg_collation c ON c.oid = a.attcollation
      WHERE a.attrelid = 'agent_services_records'::regclass AND a.attname IN ('collection', 'id', 'part') ORDER BY a.attname`;
    expect(collations.map((column) => [column.attname, column.collname])).toEqual([
      ['collection', 'C'],
      ['id', 'C'],
      ['part', 'C'],
    ]);
    const function_ = await sql`SELECT prosrc FROM pg_proc WHERE proname = 'agent_services_batch'`;
    expect(function_[0]?.prosrc).toContain('AS wanted(id)');
    const kept = await sql.unsafe(RUN_BATCH, [JSON.stringify([['f', 'agents', ['agt_1']]])]);
    expect(kept.map((row) => row.id)).toEqual(['agt_1']);
    expect(SCHEMA_VERSION).toBe(4);
    const [row] = await sql`SELECT value FROM agent_services_meta WHERE key = 'schema_version'`;
    expect(row?.value).toBe('4');
    const a = processOn(url);
    const release = await a.claims.claim('job:1');
    expect(release).toBeDefined();
    await release!();
  });
});
