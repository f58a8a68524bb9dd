// A database that cannot be used is refused at open with a message that says why; a write that
// fails answers 500 internal_error and leaves the world as it was.
import { mkdtempSync, openSync, rmSync, writeFileSync, writeSync, closeSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRuntime } from '../../../src/index.js';
import { SqliteStore } from '../../../src/providers/store/sqlite-store.js';
import { StoreOpenError } from '../../../src/providers/store/sqlite-open.js';

let dir: string;
const opened: SqliteStore[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sqlite-faults-'));
});

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(file: string, options: Parameters<typeof SqliteStore.open>[1] = {}): SqliteStore {
  const store = SqliteStore.open(file, options);
  opened.push(store);
  return store;
}

async function worldWithRows(file: string, rows: number): Promise<void> {
  const store = SqliteStore.open(file);
  await store.transaction(async (tx) => {
    for (let i = 0; i < rows; i++) await tx.insert('notes', `n${i}`, { text: `note ${i} `.repeat(20) }, 'p');
  });
  await store.close();
}

describe('opening a database', () => {
  it('refuses a file another process (or store) holds, saying so', () => {
    const file = path.join(dir, 'held.db');
    open(file);
    expect(() => open(file)).toThrow(StoreOpenError);
    expect(() => open(file)).toThrow(/in use by another process/);
  });

  it('refuses a file that is not a database, and points a JSON world to its import', () => {
    const junk = path.join(dir, 'junk.db');
    writeFileSync(junk, 'x'.repeat(200));
    expect(() => open(junk)).toThrow(/junk\.db is not a SQLite database/);
    const json = path.join(dir, 'old');
    writeFileSync(json, '{"format":"agent-services/snapshot"}');
    expect(() => open(json)).toThrow(/holds a JSON world.*--data .*old\.db/);
  });

  it('refuses a corrupt database', async () => {
    const file = path.join(dir, 'corrupt.db');
    await worldWithRows(file, 400);
    const size = statSync(file).size;
    const fd = openSync(file, 'r+');
    // Garbage over every page but the first (the header and schema stay readable).
    writeSync(fd, Buffer.alloc(size - 8192, 0xa5), 0, size - 8192, 8192);
    closeSync(fd);
    expect(() => open(file)).toThrow(/corrupt|not a database/);
  });

  it('refuses a database written by a newer version', async () => {
    const file = path.join(dir, 'newer.db');
    await worldWithRows(file, 1);
    const db = new Database(file);
    db.pragma('user_version = 99');
    db.close();
    expect(() => open(file)).toThrow(/newer agent-services \(database format 99; this version reads format 1\)/);
  });

  it('refuses a database of another application', () => {
    const file = path.join(dir, 'other.db');
    const db = new Database(file);
    db.exec('CREATE TABLE things (x)');
    db.close();
    expect(() => open(file)).toThrow(/another application/);
  });

  it('says the disk is full when the schema cannot be written', () => {
    expect(() => open(path.join(dir, 'full.db'), { maxPages: 2 })).toThrow(/no space left/);
  });
});

describe('a write that fails', () => {
  it('answers 500 internal_error and leaves the world as it was; later writes that fit succeed', async () => {
    const file = path.join(dir, 'quota.db');
    const first = await createRuntime({ store: SqliteStore.open(file) });
    const alice = await first.createAgent({ name: 'alice' });
    await first.createAgent({ name: 'bob' });
    await first.close();

    // Reopened with room for only a few more pages: a large email cannot be stored.
    const pages = (() => {
      const store = SqliteStore.open(file);
      const { pageBytes } = store.sizes();
      void store.close();
      return pageBytes / 4096;
    })();
    const errors: unknown[] = [];
    const runtime = await createRuntime({ store: open(file, { maxPages: pages + 4 }), onInternalError: (error) => errors.push(error) });
    const { random: randomBefore, ...before } = await runtime.sim.snapshot();
    const big = await runtime.dispatch({
      routeId: 'email.send',
      bearer: alice.api_key,
      idempotencyKey: 'big-one',
      body: { to: ['bob@agents.test'], subject: 'large', text: 'x'.repeat(400_000) },
    });
    expect(big.status).toBe(500);
    expect(big.body).toMatchObject({ error: { code: 'internal_error' } });
    expect(errors.length).toBeGreaterThan(0);
    const { random: randomAfter, ...after } = await runtime.sim.snapshot();
    expect(JSON.stringify(after)).toBe(JSON.stringify(before));
    // The random state is not put back: the ids the failed request drew are never drawn again.
    expect(randomAfter).not.toBe(randomBefore);

    // The key was not stored: the same request runs again (and fails again, the disk is still full).
    const again = await runtime.dispatch({ routeId: 'email.send', bearer: alice.api_key, idempotencyKey: 'big-one', body: { to: ['bob@agents.test'], subject: 'large', text: 'x'.repeat(400_000) } });
    expect(again.status).toBe(500);
    expect(again.headers['Idempotent-Replayed']).toBeUndefined();

    const small = await runtime.dispatch({ routeId: 'email.send', bearer: alice.api_key, body: { to: ['bob@agents.test'], subject: 'small', text: 'hi' } });
    expect(small.status).toBe(201);
  });

  it('never hands out again an id that a failed request drew', async () => {
    const file = path.join(dir, 'ids.db');
    const first = await createRuntime({ store: SqliteStore.open(file) });
    const alice = await first.createAgent({ name: 'alice' });
    await first.createAgent({ name: 'bob' });
    await first.close();
    const pages = (() => {
      const store = SqliteStore.open(file);
      const { pageBytes } = store.sizes();
      void store.close();
      return pageBytes / 4096;
    })();
    const runtime = await createRuntime({ store: open(file, { maxPages: pages + 4 }), onInternalError: () => undefined });
    const send = (target: typeof runtime, subject: string, text: string) => target.dispatch({ routeId: 'email.send', bearer: alice.api_key, body: { to: ['bob@agents.test'], subject, text } });
    // What a request would draw from the state before the failure: a twin world restored from it.
    const twin = await createRuntime();
    await twin.sim.restore(await runtime.sim.snapshot());
    const drawn = ((await send(twin, 'small', 'hi')).body as { message_id: string }).message_id;
    await twin.close();
    expect((await send(runtime, 'large', 'x'.repeat(400_000))).status).toBe(500);
    const after = await send(runtime, 'small', 'hi');
    expect(after.status).toBe(201);
    // The failed request drew `drawn` (and it may have been seen: reads do not wait for fsync).
    expect((after.body as { message_id: string }).message_id).not.toBe(drawn);
  });
});

describe('a restore while a commit is pending', () => {
  it("rejects with the commit's failure and imports nothing when that COMMIT fails", async () => {
    const store = open(path.join(dir, 'pending.db'));
    await store.transaction((tx) => tx.insert('notes', 'kept', { text: 'x' }, 'p'));
    // The next COMMIT fails the way a full disk or an I/O error makes it fail.
    const sql = (store as unknown as { sql: { commit: { run: () => unknown } } }).sql;
    const commit = sql.commit.run.bind(sql.commit);
    let failures = 1;
    sql.commit.run = () => {
      if (failures-- > 0) throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
      return commit();
    };
    const snapshot = { collections: { other: { nextPosition: 2, rows: [['o1', '', 1, { x: 1 }]] as Array<[string, string, number, unknown]> } } };
    const pending = store.transaction((tx) => tx.insert('notes', 'pending', { text: 'y' }, 'p'));
    pending.catch(() => undefined);
    let imported = false;
    await expect(
      store.exclusive(async () => {
        await store.import(snapshot);
        imported = true;
      }),
    ).rejects.toThrow(/disk I\/O error/);
    await expect(pending).rejects.toThrow(/disk I\/O error/);
    expect(imported).toBe(false);
    expect(await store.view.count('notes')).toBe(1);
    expect(await store.view.count('other')).toBe(0);
    // The next restore, with the disk back, goes through.
    await store.exclusive(() => store.import(snapshot));
    expect(await store.view.count('other')).toBe(1);
  });
});
