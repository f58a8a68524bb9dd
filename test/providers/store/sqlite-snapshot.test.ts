// SqliteStore keeps the world it last imported or exported until the next write: an export of an
// unchanged world hands it out again, and anything that changes the database drops it.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoreSnapshot } from '../../../src/core/ports/store.js';
import { SqliteStore } from '../../../src/providers/store/sqlite-store.js';

let dir: string;
const opened: SqliteStore[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sqlite-snapshot-'));
});

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(name: string): SqliteStore {
  const store = SqliteStore.open(path.join(dir, name));
  opened.push(store);
  return store;
}

/** What a store holds on disk: the export of the same file opened again (nothing kept in memory). */
async function onDisk(store: SqliteStore): Promise<string> {
  await store.close();
  opened.splice(opened.indexOf(store), 1);
  const reopened = SqliteStore.open(store.filename);
  opened.push(reopened);
  return JSON.stringify(await reopened.export());
}

type Rows = StoreSnapshot['collections'][string]['rows'];

/** A snapshot whose rows arrive out of position order, with records nobody froze (a parsed request body). */
function shuffledSnapshot(): StoreSnapshot {
  const notes: Rows = [];
  for (let i = 1200; i >= 1; i--) notes.push([`n${i}`, `p${i % 3}`, i, { text: `note ${i}`, tags: [i % 2 === 0 ? 'even' : 'odd'] }]);
  return JSON.parse(JSON.stringify({ collections: { zeta: { nextPosition: 3, rows: [['z1', '', 2, 'text']] }, notes: { nextPosition: 1201, rows: notes }, empty: { nextPosition: 7, rows: [] } } })) as StoreSnapshot;
}

describe('SqliteStore snapshots', () => {
  it('exports an imported world as it is stored: collections by name, rows by position', async () => {
    const store = open('a.db');
    await store.import(shuffledSnapshot());
    const kept = await store.export();
    expect(Object.keys(kept.collections)).toEqual(['empty', 'notes', 'zeta']);
    expect(kept.collections.notes!.rows.map((row) => row[2])).toEqual(Array.from({ length: 1200 }, (_, i) => i + 1));
    expect(kept.collections.empty).toEqual({ nextPosition: 7, rows: [] });
    expect(Object.isFrozen(kept.collections.notes!.rows[0]![3])).toBe(true);
    expect(JSON.stringify(kept)).toBe(await onDisk(store));
  });

  it('hands out fresh rows each time: changing one export does not change the next', async () => {
    const store = open('b.db');
    await store.import(shuffledSnapshot());
    const first = await store.export();
    first.collections.notes!.rows.length = 0;
    first.collections.notes!.nextPosition = 1;
    const second = await store.export();
    expect(second.collections.notes!.rows).toHaveLength(1200);
    expect(second.collections.notes!.nextPosition).toBe(1201);
  });

  it('shows every write made after an import or an export: insert, update, remove', async () => {
    const store = open('c.db');
    await store.import(shuffledSnapshot());
    await store.export();
    await store.transaction((tx) => tx.insert('notes', 'new', { text: 'new' }, 'p1'));
    expect((await store.export()).collections.notes!.rows.at(-1)).toEqual(['new', 'p1', 1201, { text: 'new' }]);
    await store.transaction((tx) => tx.update('notes', 'n5', { text: 'changed' }));
    expect((await store.export()).collections.notes!.rows[4]).toEqual(['n5', 'p2', 5, { text: 'changed' }]);
    await store.transaction((tx) => tx.remove('zeta', 'z1'));
    const after = await store.export();
    expect(after.collections.zeta!.rows).toEqual([]);
    expect(JSON.stringify(after)).toBe(await onDisk(store));
  });

  it('keeps the world an import replaced when the import fails', async () => {
    const store = open('d.db');
    await store.import(shuffledSnapshot());
    const before = JSON.stringify(await store.export());
    const duplicate: StoreSnapshot = {
      collections: {
        notes: {
          nextPosition: 3,
          rows: [
            ['x', '', 1, {}],
            ['x', '', 2, {}],
          ],
        },
      },
    };
    await expect(store.import(duplicate)).rejects.toThrow();
    expect(JSON.stringify(await store.export())).toBe(before);
  });

  it('re-imports its own export byte-identically, into itself and into another store', async () => {
    const source = open('e.db');
    await source.transaction(async (tx) => {
      for (let i = 0; i < 1500; i++) await tx.insert('notes', `n${i}`, { text: `note ${i}`, n: i, nested: { list: [i, -0, 1e21, 'é\u2028'] } }, `p${i % 4}`);
    });
    const snapshot = await source.export();
    const text = JSON.stringify(snapshot);
    await source.transaction((tx) => tx.remove('notes', 'n3'));
    await source.import(snapshot);
    expect(JSON.stringify(await source.export())).toBe(text);
    const target = open('f.db');
    await target.import(snapshot);
    expect(await onDisk(target)).toBe(text);
    expect(await onDisk(source)).toBe(text);
  });

  it('does not hand out again an export taken inside a group whose COMMIT then failed', async () => {
    const store = open('g.db');
    await store.transaction((tx) => tx.insert('notes', 'kept', { text: 'x' }, 'p'));
    const sql = (store as unknown as { sql: { commit: { run: () => unknown } } }).sql;
    const commit = sql.commit.run.bind(sql.commit);
    let failures = 1;
    sql.commit.run = () => {
      if (failures-- > 0) throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
      return commit();
    };
    const pending = store.transaction((tx) => tx.insert('notes', 'lost', { text: 'y' }, 'p'));
    // Reads see applied writes before their COMMIT, so this export holds the write about to fail.
    expect((await store.export()).collections.notes!.rows.map((row) => row[0])).toEqual(['kept', 'lost']);
    await expect(pending).rejects.toThrow(/disk I\/O error/);
    expect((await store.export()).collections.notes!.rows.map((row) => row[0])).toEqual(['kept']);
  });
});
