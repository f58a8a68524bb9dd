// The Store port's conformance suite: written once, run against every implementation.
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { PageQuery, Store, StoreSnapshot, StoreTransaction } from '../../../src/core/ports/store.js';
import { canonicalJson } from '../../../src/core/shared/json.js';
import { STORE_KINDS } from './store-kinds.js';

interface Note {
  id: string;
  text: string;
  tag?: string;
}

async function seed(store: Store, count: number, partition = 'p', collection = 'notes'): Promise<void> {
  await store.transaction(async (tx) => {
    for (let i = 1; i <= count; i++) await tx.insert<Note>(collection, `n${i}`, { id: `n${i}`, text: `note ${i}`, tag: i % 2 === 0 ? 'even' : 'odd' }, partition);
  });
}

async function ids(store: Store, query: PageQuery, collection = 'notes'): Promise<string[]> {
  return (await store.view.page<Note>(collection, query)).items.map((item) => item.record.id);
}

/**
 * The export's rows, without next positions and empty collections: a shared store leaves the gap
 * of a rolled-back insert, and the collection it named, where a store that runs alone does not.
 */
function rows(snapshot: StoreSnapshot): unknown {
  return Object.fromEntries(Object.entries(snapshot.collections).flatMap(([name, data]) => (data.rows.length > 0 ? [[name, data.rows]] : [])));
}

/** Everything observable about a store, for before/after comparisons. */
async function observe(store: Store): Promise<string> {
  const exported = await store.export();
  return canonicalJson({
    exported: store.shared ? rows(exported) : exported,
    pages: await ids(store, { partition: 'p', limit: 100 }),
    countAll: await store.view.count('notes'),
    countP: await store.view.count('notes', 'p'),
    all: await store.view.all<Note>('notes'),
  });
}

describe.each(STORE_KINDS)('$name conforms to the Store port', (kind) => {
  afterEach(() => kind.cleanup());

  it('inserts, reads, updates, removes and counts records', async () => {
    const store = await kind.create();
    await store.transaction(async (tx) => {
      await tx.insert<Note>('notes', 'a', { id: 'a', text: 'one' }, 'p');
      await tx.insert<Note>('notes', 'b', { id: 'b', text: 'two' }, 'q');
      await tx.insert<Note>('notes', 'c', { id: 'c', text: 'three' });
    });
    expect(await store.view.get<Note>('notes', 'a')).toEqual({ id: 'a', text: 'one' });
    expect(await store.view.get('notes', 'zzz')).toBeUndefined();
    expect(await store.view.get('other', 'a')).toBeUndefined();
    expect(await store.view.count('notes')).toBe(3);
    expect(await store.view.count('notes', 'p')).toBe(1);
    expect(await store.view.count('notes', 'q')).toBe(1);
    expect(await store.view.count('notes', 'nobody')).toBe(0);
    expect(await store.view.count('missing')).toBe(0);

    await store.transaction((tx) => tx.update<Note>('notes', 'a', { id: 'a', text: 'uno' }));
    expect((await store.view.get<Note>('notes', 'a'))?.text).toBe('uno');

    const removed = await store.transaction(async (tx) => [await tx.remove('notes', 'b'), await tx.remove('notes', 'b'), await tx.remove('nothing', 'x')]);
    expect(removed).toEqual([true, false, false]);
    expect(await store.view.get('notes', 'b')).toBeUndefined();
    expect(await store.view.count('notes')).toBe(2);
    expect(await store.view.count('notes', 'q')).toBe(0);
    expect((await store.view.all<Note>('notes')).map((note) => note.id)).toEqual(['a', 'c']);
  });

  it('keeps the position of an updated record', async () => {
    const store = await kind.create();
    await seed(store, 3);
    await store.transaction((tx) => tx.update<Note>('notes', 'n1', { id: 'n1', text: 'changed' }));
    expect(await ids(store, { partition: 'p', limit: 10 })).toEqual(['n3', 'n2', 'n1']);
    expect((await store.view.all<Note>('notes')).map((note) => note.text)).toEqual(['changed', 'note 2', 'note 3']);
  });

  it('refuses a duplicate id and an update of a missing record, undoing the transaction', async () => {
    const store = await kind.create();
    await seed(store, 1);
    await expect(store.transaction((tx) => tx.insert('notes', 'n1', { id: 'n1', text: 'again' }, 'p'))).rejects.toThrow(/duplicate/);
    await expect(store.transaction((tx) => tx.update('notes', 'ghost', { id: 'ghost', text: '' }))).rejects.toThrow(/no record/);
    expect(await store.view.count('notes')).toBe(1);
  });

  it('lets a transaction read its own writes', async () => {
    const store = await kind.create();
    const seen = await store.transaction(async (tx) => {
      await tx.insert<Note>('notes', 'a', { id: 'a', text: 'one' }, 'p');
      const first = (await tx.get<Note>('notes', 'a'))?.text;
      await tx.update<Note>('notes', 'a', { id: 'a', text: 'two' });
      return [first, (await tx.get<Note>('notes', 'a'))?.text, await tx.count('notes', 'p')];
    });
    expect(seen).toEqual(['one', 'two', 1]);
  });

  it('rolls back every write of a transaction that throws', async () => {
    const store = await kind.create();
    await seed(store, 5);
    await store.transaction((tx) => tx.remove('notes', 'n2'));
    const before = await observe(store);

    await expect(
      store.transaction(async (tx) => {
        await tx.insert<Note>('notes', 'x1', { id: 'x1', text: 'new' }, 'p');
        await tx.insert<Note>('notes', 'x2', { id: 'x2', text: 'new' }, 'q');
        await tx.update<Note>('notes', 'n1', { id: 'n1', text: 'changed' });
        await tx.update<Note>('notes', 'x1', { id: 'x1', text: 'changed too' });
        await tx.remove('notes', 'n3');
        await tx.remove('notes', 'x2');
        await tx.insert<Note>('fresh', 'f1', { id: 'f1', text: 'in a new collection' }, 'p');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');

    expect(await observe(store)).toBe(before);
    expect(await store.view.get('notes', 'x1')).toBeUndefined();
    expect((await store.view.get<Note>('notes', 'n1'))?.text).toBe('note 1');
    expect((await store.view.get<Note>('notes', 'n3'))?.text).toBe('note 3');
    expect(await store.view.count('notes', 'q')).toBe(0);
    expect(await store.view.count('fresh')).toBe(0);
  });

  it('gives the next insert after a rollback the position it would have had without it', async () => {
    const rolledBack = await kind.create();
    const clean = await kind.create();
    await seed(rolledBack, 3);
    await seed(clean, 3);
    await expect(
      rolledBack.transaction(async (tx) => {
        await tx.insert<Note>('notes', 'x1', { id: 'x1', text: '' }, 'p');
        await tx.insert<Note>('notes', 'x2', { id: 'x2', text: '' }, 'p');
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    for (const store of [rolledBack, clean]) await store.transaction((tx) => tx.insert<Note>('notes', 'later', { id: 'later', text: '' }, 'p'));

    const positionOf = async (store: Store) => (await store.view.page<Note>('notes', { partition: 'p', limit: 1 })).items[0]!.position;
    expect(await positionOf(rolledBack)).toBe(4);
    expect(canonicalJson(await rolledBack.export())).toBe(canonicalJson(await clean.export()));
  });

  it('applies the writes of an async transaction function as a whole across its awaits, and undoes all of them when it throws late', async () => {
    const store = await kind.create();
    await seed(store, 1);
    const before = await observe(store);
    const untouched = [undefined, 'note 1'];
    const written = ['first', 'second'];
    /** Starts a transaction that writes, waits two turns between and after its writes, then throws or answers. */
    const halfWay = (fails: boolean) => {
      let reached!: () => void;
      const halfDone = new Promise<void>((resolve) => (reached = resolve));
      const done = store.transaction(async (tx) => {
        await tx.insert<Note>('notes', 'sneaky', { id: 'sneaky', text: 'first' }, 'p');
        reached();
        await new Promise((resolve) => setImmediate(resolve));
        await tx.update<Note>('notes', 'n1', { id: 'n1', text: 'second' });
        await new Promise((resolve) => setImmediate(resolve));
        if (fails) throw new Error('late');
        return 'done';
      });
      return { halfDone, done };
    };
    // A reader outside the transaction, started while it is half done: it sees none of it or all of
    // it. One read (both records are in partition p): two reads of their own may straddle the
    // commit on a store that runs transactions concurrently (PostgreSQL at READ COMMITTED).
    const read = async () => {
      const { items } = await store.view.page<Note>('notes', { partition: 'p', limit: 10 });
      const text = (id: string) => items.find((item) => item.record.id === id)?.record.text;
      return [text('sneaky'), text('n1')];
    };

    const failing = halfWay(true);
    await failing.halfDone;
    const duringFailing = read();
    await expect(failing.done).rejects.toThrow('late');
    expect(await duringFailing).toEqual(untouched);
    expect(await observe(store)).toBe(before);

    const committing = halfWay(false);
    await committing.halfDone;
    const duringCommitting = read();
    await expect(committing.done).resolves.toBe('done');
    expect([untouched, written]).toContainEqual(await duringCommitting);
    expect(await read()).toEqual(written);
    expect(await ids(store, { partition: 'p', limit: 10 })).toEqual(['sneaky', 'n1']);
  });

  it('runs afterCommit callbacks only when the transaction commits, after it is visible', async () => {
    const store = await kind.create();
    const calls: string[] = [];
    // The read starts inside the callback; its answer is awaited before the check.
    const reads: Promise<unknown>[] = [];
    await store.transaction(async (tx) => {
      await tx.insert<Note>('notes', 'a', { id: 'a', text: '' }, 'p');
      tx.afterCommit(() => void reads.push(store.view.get('notes', 'a').then((record) => calls.push(`committed, visible=${record !== undefined}`))));
    });
    await expect(
      store.transaction(async (tx) => {
        await tx.insert<Note>('notes', 'b', { id: 'b', text: '' }, 'p');
        tx.afterCommit(() => calls.push('rolled back'));
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    await Promise.all(reads);
    expect(reads).toHaveLength(1);
    expect(calls).toEqual(['committed, visible=true']);
  });

  it('awaits every commit hook before the transaction resolves, and skips them when nothing changed', async () => {
    const store = await kind.create();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let hookRuns = 0;
    store.onCommit(async () => {
      hookRuns++;
      await gate;
    });
    const order: string[] = [];
    store.onCommit(() => void order.push('sync hook'));

    let resolved = false;
    const pending = store
      .transaction((tx) => tx.insert<Note>('notes', 'a', { id: 'a', text: '' }, 'p'))
      .then(() => {
        resolved = true;
      });
    // A durable store commits on a later event-loop turn: wait for the hook to start.
    while (hookRuns === 0) await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 10; i++) await Promise.resolve();
    expect(hookRuns).toBe(1);
    expect(resolved).toBe(false);
    release();
    await pending;
    expect(resolved).toBe(true);
    expect(order).toEqual(['sync hook']);

    await store.transaction((tx) => tx.get('notes', 'a'));
    await expect(
      store.transaction(async () => {
        throw new Error('x');
      }),
    ).rejects.toThrow('x');
    expect(hookRuns).toBe(1);
  });

  it('still runs afterCommit callbacks when a commit hook fails, since the writes are committed', async () => {
    const store = await kind.create();
    store.onCommit(async () => {
      throw new Error('disk full');
    });
    const calls: string[] = [];
    await expect(
      store.transaction(async (tx) => {
        await tx.insert<Note>('notes', 'a', { id: 'a', text: '' }, 'p');
        tx.afterCommit(() => calls.push('after'));
      }),
    ).rejects.toThrow('disk full');
    expect(await store.view.get('notes', 'a')).toBeDefined();
    expect(calls).toEqual(['after']);
  });

  it('round-trips export and import to the same canonical JSON and the same behaviour', async () => {
    const store = await kind.create();
    await seed(store, 6);
    await seed(store, 2, 'q', 'other');
    await store.transaction(async (tx) => {
      await tx.remove('notes', 'n6');
      await tx.update<Note>('notes', 'n2', { id: 'n2', text: 'edited' });
    });
    const exported = await store.export();
    const copy = await kind.create();
    await copy.import(JSON.parse(JSON.stringify(exported)));
    expect(canonicalJson(await copy.export())).toBe(canonicalJson(exported));
    expect(await ids(copy, { partition: 'p', limit: 10 })).toEqual(await ids(store, { partition: 'p', limit: 10 }));

    // the next insert continues the original position sequence, not a compacted one
    for (const target of [store, copy]) await target.transaction((tx) => tx.insert<Note>('notes', 'n7', { id: 'n7', text: '' }, 'p'));
    expect(canonicalJson(await copy.export())).toBe(canonicalJson(await store.export()));
    expect((await copy.view.page<Note>('notes', { partition: 'p', limit: 1 })).items[0]!.position).toBe(7);
  });

  it('imports a snapshot of many rows (more than one batch) exactly', async () => {
    const store = await kind.create();
    const rows = Array.from({ length: 150 }, (_, i) => [`r${i}`, `p${i % 3}`, i + 1, { id: `r${i}`, text: `row ${i}`, n: i / 7 }] as [string, string, number, unknown]);
    await store.import({ collections: { notes: { nextPosition: 151, rows } } });
    expect(canonicalJson(await store.export())).toBe(canonicalJson({ collections: { notes: { nextPosition: 151, rows } } }));
    expect(await store.view.count('notes', 'p1')).toBe(50);
  });

  it('replaces the whole state on import', async () => {
    const store = await kind.create();
    await seed(store, 3);
    await store.import({ collections: { other: { nextPosition: 2, rows: [['o1', '', 1, { id: 'o1', text: 'only' }]] } } });
    expect(await store.view.count('notes')).toBe(0);
    expect((await store.view.get<Note>('other', 'o1'))?.text).toBe('only');
  });

  describe('page()', () => {
    it('answers newest first with hasMore while older records exist', async () => {
      const store = await kind.create();
      await seed(store, 5);
      const first = await store.view.page<Note>('notes', { partition: 'p', limit: 2 });
      expect(first.items.map((item) => item.record.id)).toEqual(['n5', 'n4']);
      expect(first.items.map((item) => item.position)).toEqual([5, 4]);
      expect(first.hasMore).toBe(true);
      const exact = await store.view.page<Note>('notes', { partition: 'p', limit: 5 });
      expect(exact.items).toHaveLength(5);
      expect(exact.hasMore).toBe(false);
      expect(await store.view.page('notes', { partition: 'empty', limit: 5 })).toEqual({ items: [], hasMore: false });
      expect(await store.view.page('missing', { partition: 'p', limit: 5 })).toEqual({ items: [], hasMore: false });
    });

    it('continues strictly before a keyset position', async () => {
      const store = await kind.create();
      await seed(store, 5);
      expect(await ids(store, { partition: 'p', limit: 2, before: 4 })).toEqual(['n3', 'n2']);
      expect((await store.view.page('notes', { partition: 'p', limit: 2, before: 3 })).hasMore).toBe(false);
      expect(await ids(store, { partition: 'p', limit: 2, before: 1 })).toEqual([]);
      expect(await ids(store, { partition: 'p', limit: 10, before: 1000 })).toEqual(['n5', 'n4', 'n3', 'n2', 'n1']);
    });

    it('skips removed records', async () => {
      const store = await kind.create();
      await seed(store, 8);
      await store.transaction(async (tx) => [await tx.remove('notes', 'n6'), await tx.remove('notes', 'n8')]);
      const page = await store.view.page<Note>('notes', { partition: 'p', limit: 2 });
      expect(page.items.map((item) => item.record.id)).toEqual(['n7', 'n5']);
      expect(page.hasMore).toBe(true);
    });

    it('walks oldest first after a position', async () => {
      const store = await kind.create();
      await seed(store, 5);
      await store.transaction((tx) => tx.remove('notes', 'n2'));
      const first = await store.view.page<Note>('notes', { partition: 'p', limit: 2, order: 'oldest' });
      expect(first.items.map((item) => [item.record.id, item.position])).toEqual([
        ['n1', 1],
        ['n3', 3],
      ]);
      expect(first.hasMore).toBe(true);
      expect(await ids(store, { partition: 'p', limit: 10, order: 'oldest', after: 3 })).toEqual(['n4', 'n5']);
      expect((await store.view.page('notes', { partition: 'p', limit: 2, order: 'oldest', after: 3 })).hasMore).toBe(false);
    });

    it('keeps partitions apart', async () => {
      const store = await kind.create();
      await store.transaction(async (tx) => {
        await tx.insert<Note>('notes', 'a1', { id: 'a1', text: '' }, 'alice');
        await tx.insert<Note>('notes', 'b1', { id: 'b1', text: '' }, 'bob');
        await tx.insert<Note>('notes', 'a2', { id: 'a2', text: '' }, 'alice');
      });
      expect(await ids(store, { partition: 'alice', limit: 10 })).toEqual(['a2', 'a1']);
      expect(await ids(store, { partition: 'bob', limit: 10 })).toEqual(['b1']);
    });

    it('sees every record that existed when a walk began exactly once, and none inserted during it', async () => {
      type Step = { inserts: number; partition: 'p' | 'q' };
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 30 }),
          fc.integer({ min: 1, max: 7 }),
          fc.array(fc.record({ inserts: fc.integer({ min: 0, max: 4 }), partition: fc.constantFrom<'p' | 'q'>('p', 'q') }), { maxLength: 20 }),
          async (initial, limit, steps: Step[]) => {
            const store = await kind.create({ fast: true });
            let counter = 0;
            const insert = (partition: string, n: number) =>
              store.transaction(async (tx) => {
                for (let i = 0; i < n; i++) {
                  const id = `r${++counter}`;
                  await tx.insert<Note>('notes', id, { id, text: '' }, partition);
                }
              });
            await insert('p', initial);
            await insert('q', 2);
            const existing = new Set((await store.view.all<Note>('notes')).filter((_, index) => index < initial).map((note) => note.id));

            const seen: string[] = [];
            let before: number | undefined;
            let step = 0;
            for (;;) {
              const page = await store.view.page<Note>('notes', { partition: 'p', limit, ...(before === undefined ? {} : { before }) });
              seen.push(...page.items.map((item) => item.record.id));
              if (!page.hasMore) break;
              before = page.items[page.items.length - 1]!.position;
              const between = steps[step++];
              if (between) await insert(between.partition, between.inserts);
            }
            expect(seen).toHaveLength(existing.size);
            expect(new Set(seen)).toEqual(existing);
          },
        ),
        { numRuns: kind.name === 'MemoryStore' ? 100 : 40 },
      );
    });
  });
});

describe.each(STORE_KINDS)('$name transaction handle', (kind) => {
  afterEach(() => kind.cleanup());

  it('refuses writes through a handle kept past its transaction', async () => {
    const store = await kind.create();
    let kept: StoreTransaction | undefined;
    await store.transaction(async (tx) => {
      kept = tx;
    });
    // Refused whether the store throws at the call or rejects the write's promise.
    await expect((async () => kept!.insert('late', 'x', { v: 1 }))()).rejects.toThrow('outside its transaction');
    expect(await store.view.count('late')).toBe(0);
  });
});

describe.each(STORE_KINDS)('$name positions, units and callbacks', (kind) => {
  afterEach(() => kind.cleanup());

  it('reports the last position given, which removals do not lower and rollbacks do', async () => {
    const store = await kind.create();
    expect(await store.view.lastPosition('notes')).toBe(0);
    await seed(store, 3);
    await store.transaction((tx) => tx.remove('notes', 'n3'));
    expect(await store.view.lastPosition('notes')).toBe(3);
    await expect(
      store.transaction(async (tx) => {
        await tx.insert<Note>('notes', 'x', { id: 'x', text: '' }, 'p');
        expect(await tx.lastPosition('notes')).toBe(4);
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    // A store that runs transactions concurrently cannot give a drawn position back: a gap.
    expect(await store.view.lastPosition('notes')).toBe(kind.alone ? 3 : 4);
  });

  it('runs afterApply callbacks at once and afterCommit callbacks once durable, neither after a rollback', async () => {
    const store = await kind.create();
    const calls: string[] = [];
    // A commit hook that waits holds the transaction short of durable: what ran by then ran on apply.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let hookStarted = false;
    store.onCommit(async () => {
      hookStarted = true;
      await gate;
    });
    const pending = store.transaction(async (tx) => {
      await tx.insert<Note>('notes', 'a', { id: 'a', text: '' }, 'p');
      tx.afterApply(() => calls.push('applied'));
      tx.afterCommit(() => calls.push('committed'));
    });
    while (!hookStarted) await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual(['applied']);
    release();
    await pending;
    expect(calls).toEqual(['applied', 'committed']);
    await expect(
      store.transaction(async (tx) => {
        tx.afterApply(() => calls.push('rolled back'));
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(calls).toEqual(['applied', 'committed']);
  });

  it("commits a unit's transactions and its last step together, answering after all of them", async () => {
    const store = await kind.create();
    const committed: string[] = [];
    const result = await store.unit(
      async () => {
        await store.transaction(async (tx) => {
          await tx.insert<Note>('notes', 'effect', { id: 'effect', text: '' }, 'p');
          tx.afterCommit(() => committed.push('effect'));
        });
        // A transaction inside a unit resolves once applied; the commit comes at the unit's end.
        expect(committed).toEqual([]);
        await store.transaction((tx) => tx.insert<Note>('notes', 'second', { id: 'second', text: '' }, 'p'));
        return 'answer';
      },
      (tx, answer) => tx.insert('keys', 'k', { answer }),
    );
    expect(result).toBe('answer');
    expect(committed).toEqual(['effect']);
    expect(await store.view.get('keys', 'k')).toEqual({ answer: 'answer' });
    expect(await store.view.count('notes')).toBe(2);
  });

  it("undoes a unit's failing first transaction alone: what follows, locks and its last step commit", async () => {
    const store = await kind.create();
    await seed(store, 1, 'w', 'wallets');
    const result = await store.unit(
      async () => {
        await expect(
          store.transaction(async (tx) => {
            await tx.lock('wallets', ['n1']);
            await tx.insert<Note>('notes', 'lost-a', { id: 'lost-a', text: '' }, 'p');
            await tx.insert<Note>('notes', 'lost-b', { id: 'lost-b', text: '' }, 'p');
            await tx.update<Note>('wallets', 'n1', { id: 'n1', text: 'lost' });
            throw new Error('402');
          }),
        ).rejects.toThrow('402');
        // The same lock again, then reads and writes behind it.
        await store.transaction(async (tx) => {
          await tx.lock('wallets', ['n1']);
          const wallet = await tx.get<Note>('wallets', 'n1');
          await tx.update<Note>('wallets', 'n1', { id: 'n1', text: `${wallet!.text} kept` });
          await tx.insert<Note>('notes', 'kept-a', { id: 'kept-a', text: '' }, 'p');
          await tx.insert<Note>('notes', 'kept-b', { id: 'kept-b', text: '' }, 'p');
        });
        return 'answer';
      },
      (tx, answer) => tx.insert('keys', 'k', { answer }),
    );
    expect(result).toBe('answer');
    expect(await ids(store, { partition: 'p', order: 'oldest', limit: 10 })).toEqual(['kept-a', 'kept-b']);
    expect((await store.view.get<Note>('wallets', 'n1'))!.text).toBe('note 1 kept');
    expect(await store.view.get('keys', 'k')).toEqual({ answer: 'answer' });
  });

  it("undoes a unit's failing later transaction alone, keeping the transactions before and after it", async () => {
    const store = await kind.create();
    await seed(store, 2, 'w', 'wallets');
    await store.unit(async () => {
      await store.transaction(async (tx) => {
        await tx.lock('wallets', ['n1']);
        await tx.lock('wallets', ['n2']);
        await tx.insert<Note>('notes', 'first', { id: 'first', text: '' }, 'p');
      });
      await expect(
        store.transaction(async (tx) => {
          await tx.lock('wallets', ['n1', 'n2']);
          await tx.insert<Note>('notes', 'lost-a', { id: 'lost-a', text: '' }, 'p');
          await tx.insert<Note>('notes', 'lost-b', { id: 'lost-b', text: '' }, 'p');
          expect(await tx.count('notes', 'p')).toBe(3);
          await tx.update<Note>('wallets', 'n2', { id: 'n2', text: 'lost' });
          throw new Error('402');
        }),
      ).rejects.toThrow('402');
      await store.transaction(async (tx) => {
        await tx.lock('wallets', ['n2']);
        expect((await tx.get<Note>('wallets', 'n2'))!.text).toBe('note 2');
        await tx.insert<Note>('notes', 'last', { id: 'last', text: '' }, 'p');
      });
    });
    expect(await ids(store, { partition: 'p', order: 'oldest', limit: 10 })).toEqual(['first', 'last']);
    expect((await store.view.get<Note>('wallets', 'n2'))!.text).toBe('note 2');
  });

  it('keeps what a throwing unit applied and rethrows, and joins a nested unit to the outer one', async () => {
    const store = await kind.create();
    await expect(
      store.unit(async () => {
        await store.unit(async () => {
          await store.transaction((tx) => tx.insert<Note>('notes', 'inner', { id: 'inner', text: '' }, 'p'));
        });
        await store.transaction((tx) => tx.insert<Note>('notes', 'outer', { id: 'outer', text: '' }, 'p'));
        throw new Error('handler bug');
      }),
    ).rejects.toThrow('handler bug');
    expect(await ids(store, { partition: 'p', limit: 10 })).toEqual(['outer', 'inner']);
  });

  it('serves concurrent units and plain transactions without losing or mixing writes', async () => {
    const store = await kind.create();
    const work = Array.from({ length: 40 }, (_, i) =>
      i % 2 === 0
        ? store.unit(
            async () => {
              await store.transaction((tx) => tx.insert<Note>('notes', `u${i}`, { id: `u${i}`, text: '' }, 'p'));
              await Promise.resolve();
              return i;
            },
            (tx, n) => tx.insert('keys', `k${n}`, { n }),
          )
        : store.transaction((tx) => tx.insert<Note>('notes', `t${i}`, { id: `t${i}`, text: '' }, 'q')),
    );
    await Promise.all(work);
    expect(await store.view.count('notes', 'p')).toBe(20);
    expect(await store.view.count('notes', 'q')).toBe(20);
    expect(await store.view.count('keys')).toBe(20);
  });
  it('holds a transaction that arrives while a unit stays open across turns, and commits both', async () => {
    const store = await kind.create();
    const order: string[] = [];
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    let applied!: () => void;
    const unitApplied = new Promise<void>((resolve) => (applied = resolve));
    const unit = store.unit(async () => {
      await store.transaction(async (tx) => {
        await tx.insert<Note>('notes', 'u', { id: 'u', text: 'unit' }, 'p');
        tx.afterCommit(() => order.push('unit durable'));
      });
      applied();
      await finished;
    });
    await unitApplied;
    // Several turns pass: the unit's group is due but held open by the unit (sealed).
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
    const late = store.transaction(async (tx) => {
      await tx.insert<Note>('notes', 't', { id: 't', text: 'late' }, 'p');
      tx.afterCommit(() => order.push('late durable'));
    });
    const lateDone = late.then(() => order.push('late resolved'));
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
    // With group commit the newcomer waits for the next group before it is even applied (the
    // path the sealed group takes); the memory store applies it at once.
    // A shared store commits the newcomer on its own connection, whenever the database answers.
    if (kind.alone) expect((await store.view.get('notes', 't')) !== undefined).toBe(kind.name !== 'SqliteStore');
    finish();
    await Promise.all([unit, lateDone]);
    expect((await ids(store, { partition: 'p', limit: 10 })).sort()).toEqual(['t', 'u']);
    // A late transaction resolves only once durable; on a store with group commit it waited for
    // the next group (the open unit's group took no newcomers), so it is durable after the unit.
    expect(order.indexOf('late durable')).toBeLessThan(order.indexOf('late resolved'));
    if (kind.name === 'SqliteStore') expect(order).toEqual(['unit durable', 'late durable', 'late resolved']);
  });

  it('runs exclusive work after every open unit ended and is durable, holding newcomers until it is done', async () => {
    const store = await kind.create();
    await seed(store, 2);
    const snapshot = await store.export();
    const order: string[] = [];
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    let applied!: () => void;
    const unitApplied = new Promise<void>((resolve) => (applied = resolve));
    const unit = store.unit(async () => {
      await store.transaction((tx) => tx.insert<Note>('notes', 'mid', { id: 'mid', text: '' }, 'p'));
      applied();
      await finished;
      await store.transaction((tx) => tx.insert<Note>('notes', 'end', { id: 'end', text: '' }, 'p'));
      order.push('unit done');
    });
    await unitApplied;
    // Importing now would drop half of the unit: refused outright, exclusive() waits instead.
    await expect(store.import(snapshot)).rejects.toThrow(/exclusive/);
    const restore = store.exclusive(async () => {
      order.push(`restore sees ${await store.view.count('notes')}`);
      await store.import(snapshot);
    });
    await new Promise((resolve) => setImmediate(resolve));
    const newcomer = store.transaction((tx) => tx.insert<Note>('notes', 'new', { id: 'new', text: '' }, 'p')).then(() => order.push('newcomer done'));
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([]);
    finish();
    await Promise.all([unit, restore, newcomer]);
    expect(order).toEqual(['unit done', 'restore sees 4', 'newcomer done']);
    expect(await ids(store, { partition: 'p', limit: 10 })).toEqual(['new', 'n2', 'n1']);
  });
});

describe('the same history on every store', () => {
  afterEach(async () => {
    for (const kind of STORE_KINDS) await kind.cleanup();
  });

  it('exports byte-identical JSON', async () => {
    const history = async (store: Store) => {
      await seed(store, 20);
      await seed(store, 5, 'q', 'other');
      await store.transaction(async (tx) => {
        await tx.remove('notes', 'n20');
        await tx.remove('notes', 'n3');
        await tx.update<Note>('notes', 'n4', { id: 'n4', text: 'edited', tag: 'x' });
        await tx.insert('empty-after', 'e', { gone: true });
      });
      await store.transaction((tx) => tx.remove('empty-after', 'e'));
      await expect(
        store.transaction(async (tx) => {
          await tx.insert('rolled', 'r', {});
          await tx.remove('notes', 'n1');
          throw new Error('x');
        }),
      ).rejects.toThrow('x');
      await store.unit(
        async () => store.transaction((tx) => tx.insert('notes', 'u', { id: 'u', text: 'ü ☃ 😀', nested: { list: [1, 2.5, null, 'x'] } }, 'p')),
        (tx) => tx.insert('keys', 'k', { status: 201 }),
      );
    };
    const exports: string[] = [];
    const sharedRows: string[] = [];
    for (const kind of STORE_KINDS) {
      const store = await kind.create();
      await history(store);
      const exported = await store.export();
      // A shared store keeps the gaps of its rollbacks: the same rows, other next positions.
      if (kind.alone) exports.push(JSON.stringify(exported));
      else sharedRows.push(JSON.stringify(rows(exported)));
    }
    expect(new Set(exports).size).toBe(1);
    for (const shared of sharedRows) expect(shared).toBe(JSON.stringify(rows(JSON.parse(exports[0]!))));
    expect(JSON.parse(exports[0]!).collections['empty-after']).toEqual({ nextPosition: 2, rows: [] });
  });

  it('imports what another store exported and continues its positions', async () => {
    const [memory, sqlite] = await Promise.all(STORE_KINDS.filter((kind) => kind.name !== 'PostgresStore').map((kind) => kind.create()));
    await seed(memory!, 4);
    await memory!.transaction((tx) => tx.remove('notes', 'n4'));
    await sqlite!.import(JSON.parse(JSON.stringify(await memory!.export())));
    expect(JSON.stringify(await sqlite!.export())).toBe(JSON.stringify(await memory!.export()));
    for (const store of [memory!, sqlite!]) await store.transaction((tx) => tx.insert<Note>('notes', 'n5', { id: 'n5', text: '' }, 'p'));
    expect(JSON.stringify(await sqlite!.export())).toBe(JSON.stringify(await memory!.export()));
    expect((await sqlite!.view.page<Note>('notes', { partition: 'p', limit: 1 })).items[0]!.position).toBe(5);
  });

  it('refuses an import whose positions are not below nextPosition, changing nothing', async () => {
    for (const kind of STORE_KINDS) {
      const store = await kind.create();
      await seed(store, 2);
      const before = JSON.stringify(await store.export());
      await expect(store.import({ collections: { notes: { nextPosition: 2, rows: [['a', '', 2, {}]] } } })).rejects.toThrow(/nextPosition/);
      expect(JSON.stringify(await store.export())).toBe(before);
    }
  });
});

describe('SqliteStore runtime state', () => {
  afterEach(async () => {
    for (const kind of STORE_KINDS) await kind.cleanup();
  });

  it('saves the tracked state inside a unit without waiting for the unit to end', async () => {
    const store = await STORE_KINDS.find((kind) => kind.name === 'SqliteStore')!.create();
    let clock = 1;
    store.runtimeState!.track(
      () => ({ service_domain: 'x.test', clock_ms: clock, random: 'r' }),
      () => {},
    );
    await store.unit(async () => {
      clock = 2;
      await store.runtimeState!.save();
      return null;
    });
    expect(await store.runtimeState!.load()).toEqual({ service_domain: 'x.test', clock_ms: 2, random: 'r' });
  });
});
