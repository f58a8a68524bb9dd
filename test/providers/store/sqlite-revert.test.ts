// Importing again the snapshot a SqliteStore imported last rewrites only the records written since
// (a fixture restored before every test). Whatever was written, the store must then be exactly the
// store a whole import of that snapshot makes: on disk, in what it answers, in what it does next.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StoreSnapshot, StoreTransaction } from '../../../src/core/ports/store.js';
import { SqliteStore } from '../../../src/providers/store/sqlite-store.js';

let dir: string;
const opened: SqliteStore[] = [];
let files = 0;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sqlite-revert-'));
});

afterEach(async () => {
  vi.restoreAllMocks();
  for (const store of opened.splice(0)) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(file = `w${files++}.db`): SqliteStore {
  const store = SqliteStore.open(path.join(dir, file));
  opened.push(store);
  return store;
}

type Rows = StoreSnapshot['collections'][string]['rows'];

/** A fixture: two collections with partitions, one empty collection with a next position. */
function fixture(): StoreSnapshot {
  const notes: Rows = [];
  for (let i = 1; i <= 40; i++) notes.push([`n${i}`, `p${i % 3}`, i, { text: `note ${i}`, tags: [i % 2 === 0 ? 'even' : 'odd'] }]);
  return {
    collections: {
      notes: { nextPosition: 45, rows: notes },
      users: {
        nextPosition: 3,
        rows: [
          ['u1', '', 1, { name: 'ann' }],
          ['u2', '', 2, { name: 'ben' }],
        ],
      },
      empty: { nextPosition: 7, rows: [] },
    },
  };
}

/** Everything a store answers about its world, read through its view. */
async function observe(store: SqliteStore) {
  const view = store.view;
  const names = ['notes', 'users', 'empty', 'extra'];
  const lastPositions: number[] = [];
  const counts: number[][] = [];
  for (const name of names) {
    lastPositions.push(await view.lastPosition(name));
    counts.push([await view.count(name), await view.count(name, 'p1'), await view.count(name, '')]);
  }
  const gets: unknown[][] = [];
  for (const id of ['n1', 'n7', 'n41', 'u1', 'x1']) gets.push([await view.get('notes', id), await view.get('users', id), await view.get('extra', id)]);
  return {
    exported: JSON.stringify(await store.export()),
    lastPositions,
    counts,
    gets,
    pages: [await view.page('notes', { partition: 'p1', limit: 5, order: 'newest' }), await view.page('notes', { partition: 'p2', limit: 50, order: 'oldest', after: 3 })],
  };
}

/** One write after the import: any of the three kinds, on old or new records, in old or new collections. */
type Write = { kind: 'insert'; collection: string; partition: string } | { kind: 'update' | 'remove'; collection: 'notes' | 'users'; pick: number };

const write = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), collection: fc.constantFrom('notes', 'users', 'empty', 'extra'), partition: fc.constantFrom('', 'p1', 'p2') }),
  fc.record({ kind: fc.constantFrom('update' as const, 'remove' as const), collection: fc.constantFrom('notes' as const, 'users' as const), pick: fc.nat(60) }),
);

let inserted = 0;
async function apply(tx: StoreTransaction, step: Write): Promise<void> {
  if (step.kind === 'insert') {
    await tx.insert(step.collection, `new${inserted++}`, { made: step.collection }, step.partition);
    return;
  }
  const prefix = step.collection === 'notes' ? 'n' : 'u';
  const id = `${prefix}${(step.pick % 45) + 1}`;
  if ((await tx.get(step.collection, id)) === undefined) return;
  if (step.kind === 'update') await tx.update(step.collection, id, { changed: step.pick });
  else await tx.remove(step.collection, id);
}

describe('SqliteStore: importing the last imported snapshot again', () => {
  it('leaves the store as a whole import would, whatever was written, committed or rolled back, since', async () => {
    const revert = vi.spyOn(SqliteStore.prototype as unknown as { revert(): void }, 'revert');
    const reference = open();
    await reference.import(fixture());
    const expected = await observe(reference);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.array(write, { maxLength: 6 }), fc.boolean()), { maxLength: 5 }), async (transactions) => {
        const store = open();
        const snapshot = fixture();
        await store.import(snapshot);
        for (const [steps, fails] of transactions) {
          await store
            .transaction(async (tx) => {
              for (const step of steps) await apply(tx, step);
              if (fails) throw new Error('rolled back');
            })
            .catch((error: Error) => expect(error.message).toBe('rolled back'));
        }
        const before = revert.mock.calls.length;
        await store.exclusive(() => store.import(snapshot));
        expect(revert.mock.calls.length).toBe(before + 1);
        expect(await observe(store)).toEqual(expected);
        // And what it does next: the next insert takes the fixture's next position.
        await store.transaction((tx) => tx.insert('notes', 'next', { text: 'next' }, 'p1'));
        expect((await store.view.page('notes', { partition: 'p1', limit: 1, order: 'newest' })).items[0]!.position).toBe(45);
        // On disk too: the file opened again holds the fixture (and that insert, removed here).
        await store.close();
        const reopened = SqliteStore.open(store.filename);
        opened.push(reopened);
        await reopened.transaction((tx) => tx.remove('notes', 'next'));
        const onDisk = JSON.parse(JSON.stringify(await reopened.export())) as StoreSnapshot;
        expect(onDisk.collections.notes!.nextPosition).toBe(46);
        onDisk.collections.notes!.nextPosition = 45;
        expect(JSON.stringify(onDisk)).toBe(expected.exported);
      }),
      { numRuns: 40 },
    );
  });

  it('takes an export of the imported world for that world (the usual fixture: import, export, restore it before each test)', async () => {
    const revert = vi.spyOn(SqliteStore.prototype as unknown as { revert(): void }, 'revert');
    const store = open();
    await store.import(fixture());
    const saved = await store.export();
    for (let test = 0; test < 3; test++) {
      await store.transaction(async (tx) => {
        await tx.update('users', 'u1', { name: `changed ${test}` });
        await tx.insert('extra', `e${test}`, { test });
      });
      await store.import(saved);
      expect(await store.view.get('users', 'u1')).toEqual({ name: 'ann' });
      expect(await store.view.count('extra')).toBe(0);
    }
    expect(revert).toHaveBeenCalledTimes(3);
  });

  it('imports whole a snapshot that is equal but not the same objects, or that was changed since', async () => {
    const revert = vi.spyOn(SqliteStore.prototype as unknown as { revert(): void }, 'revert');
    const store = open();
    const snapshot = fixture();
    await store.import(snapshot);
    await store.transaction((tx) => tx.update('users', 'u1', { name: 'changed' }));
    // Equal content parsed anew (a POST /_sim/restore body): a whole import.
    await store.import(JSON.parse(JSON.stringify(snapshot)) as StoreSnapshot);
    expect(await store.view.get('users', 'u1')).toEqual({ name: 'ann' });
    // The snapshot object that was imported, with a row added since: that row is imported too.
    const grown = await store.export();
    grown.collections.users!.rows.push(['u3', '', 2, { name: 'cat' }]);
    grown.collections.users!.nextPosition = 4;
    grown.collections.users!.rows[1] = ['u2', '', 3, grown.collections.users!.rows[1]![3]];
    await store.import(grown);
    expect(await store.view.all('users')).toEqual([{ name: 'ann' }, { name: 'cat' }, { name: 'ben' }]);
    expect(revert).not.toHaveBeenCalled();
  });

  it('freezes the records of a world it keeps, so that nobody changes them under it', async () => {
    const store = open();
    const snapshot = fixture();
    await store.import(snapshot);
    const record = snapshot.collections.users!.rows[0]![3] as { name: string };
    expect(Object.isFrozen(record)).toBe(true);
    expect(() => {
      record.name = 'changed';
    }).toThrow(TypeError);
  });

  it('gives the shortcut up once more was written than a quarter of the world, and still restores exactly', async () => {
    const revert = vi.spyOn(SqliteStore.prototype as unknown as { revert(): void }, 'revert');
    const store = open();
    const notes: Rows = Array.from({ length: 400 }, (_, i) => [`n${i}`, '', i + 1, { i }]);
    const snapshot: StoreSnapshot = { collections: { notes: { nextPosition: 401, rows: notes } } };
    await store.import(snapshot);
    const expected = JSON.stringify(await store.export());
    await store.transaction(async (tx) => {
      for (let i = 0; i < 101; i++) await tx.update('notes', `n${i}`, { i: -i });
    });
    await store.import(snapshot);
    expect(revert).not.toHaveBeenCalled();
    expect(JSON.stringify(await store.export())).toBe(expected);
  });
});
