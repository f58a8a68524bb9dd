// Behaviour of the in-memory store beyond the shared conformance suite.
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../src/providers/store/memory-store.js';

describe('MemoryStore', () => {
  it('freezes stored records so they cannot be changed by reference', async () => {
    const store = new MemoryStore();
    const record = { id: 'a', text: 'one', nested: { n: 1 } };
    await store.transaction((tx) => tx.insert('notes', 'a', record, 'p'));
    expect(Object.isFrozen(await store.view.get('notes', 'a'))).toBe(true);
    const stored = await store.view.get<typeof record>('notes', 'a');
    expect(() => {
      (stored!.nested as { n: number }).n = 2;
    }).toThrow(TypeError);
  });

  it('takes over imported records without copying them, frozen once read or exported', async () => {
    const store = new MemoryStore();
    const record = { id: 'a', nested: { n: 1 } };
    const other = { id: 'b', nested: { n: 2 } };
    await store.import({
      collections: {
        notes: {
          nextPosition: 3,
          rows: [
            ['a', 'p', 1, record],
            ['b', 'p', 2, other],
          ],
        },
      },
    });
    expect(await store.view.get('notes', 'a')).toBe(record);
    expect(Object.isFrozen(record.nested)).toBe(true);
    expect((await store.export()).collections.notes!.rows[1]![3]).toBe(other);
    expect(Object.isFrozen(other.nested)).toBe(true);
  });

  it('keeps pages exact while removals pile up and are compacted away', async () => {
    const store = new MemoryStore();
    await store.transaction(async (tx) => {
      for (let i = 1; i <= 1000; i++) await tx.insert('jobs', `j${i}`, { i }, '');
    });
    for (let i = 1; i <= 990; i++) await store.transaction((tx) => tx.remove('jobs', `j${i}`));
    const page = await store.view.page<{ i: number }>('jobs', { partition: '', limit: 5 });
    expect(page.items.map((item) => item.record.i)).toEqual([1000, 999, 998, 997, 996]);
    expect((await store.view.page<{ i: number }>('jobs', { partition: '', limit: 20, order: 'oldest' })).items.map((item) => item.position)).toEqual([991, 992, 993, 994, 995, 996, 997, 998, 999, 1000]);
    expect(await store.view.count('jobs')).toBe(10);
  });

  it('answers a collection whose ids are its positions (the event log) like any other, through removals, rollbacks and a first id that is not', async () => {
    const store = new MemoryStore();
    await store.transaction(async (tx) => {
      for (let i = 1; i <= 100; i++) await tx.insert('log', String(i), { i }, '');
    });
    for (let i = 1; i <= 80; i++) await store.transaction((tx) => tx.remove('log', String(i)));
    await expect(
      store.transaction(async (tx) => {
        await tx.remove('log', '81');
        await tx.insert('log', '101', { i: 101 }, '');
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await store.view.get('log', '81')).toEqual({ i: 81 });
    expect(await store.view.get('log', '101')).toBeUndefined();
    expect(await store.view.get('log', '80')).toBeUndefined();
    expect(await store.view.get('log', '081')).toBeUndefined();
    expect(await store.view.count('log')).toBe(20);
    await expect(store.transaction((tx) => tx.insert('log', '50', { i: 0 }, ''))).resolves.toBeUndefined();
    expect(await store.view.get('log', '50')).toEqual({ i: 0 });
    await expect(store.transaction((tx) => tx.insert('log', '90', { i: 1 }, ''))).rejects.toThrow('duplicate id 90 in log');
    expect(await store.view.get('log', '90')).toEqual({ i: 90 });
    expect(await store.view.count('log')).toBe(21);
    expect((await store.view.all<{ i: number }>('log')).map((record) => record.i)).toEqual([...Array.from({ length: 20 }, (_, k) => 81 + k), 0]);
    const rows = (await store.export()).collections.log!.rows;
    expect(rows.map((row) => row[0])).toEqual([...Array.from({ length: 20 }, (_, k) => String(81 + k)), '50']);
    expect(rows.map((row) => row[2])).toEqual([...Array.from({ length: 20 }, (_, k) => 81 + k), 101]);
  });

  it('refuses an import that names one positional id twice', async () => {
    const store = new MemoryStore();
    await expect(
      store.import({
        collections: {
          log: {
            nextPosition: 3,
            rows: [
              ['1', '', 1, {}],
              ['1', '', 1, {}],
            ],
          },
        },
      }),
    ).rejects.toThrow('duplicate id 1 in log');
  });
  it('numbers an insert at once with insertNumbered: position as id and field, undone with its transaction', async () => {
    const store = new MemoryStore();
    await store.transaction((tx) => tx.insert('log', '1', { seq: 1, text: 'first' }));
    const second = { seq: 0, text: 'second' };
    await store.transaction(async (tx) => {
      await tx.insertNumbered!('log', 'seq', second);
      // Set before the call answers: the store runs alone, so the number is this insert's for good.
      expect(second.seq).toBe(2);
      expect(await tx.lastPosition('log')).toBe(2);
    });
    expect(await store.view.get('log', '2')).toEqual({ seq: 2, text: 'second' });
    await expect(
      store.transaction(async (tx) => {
        await tx.insertNumbered!('log', 'seq', { seq: 0, text: 'gone' });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const third = { seq: 0, text: 'third' };
    await store.transaction((tx) => tx.insertNumbered!('log', 'seq', third));
    expect(third.seq).toBe(3);
    expect((await store.export()).collections.log!.rows.map(([id, , position, record]) => [id, position, record])).toEqual([
      ['1', 1, { seq: 1, text: 'first' }],
      ['2', 2, { seq: 2, text: 'second' }],
      ['3', 3, { seq: 3, text: 'third' }],
    ]);
  });

  it('answers a read with the record as it is now after updates and rolled-back updates', async () => {
    const store = new MemoryStore();
    await store.transaction((tx) => tx.insert('wallets', 'a', { n: 1 }));
    expect(await store.view.get('wallets', 'a')).toEqual({ n: 1 });
    expect(await store.view.get('wallets', 'a')).toEqual({ n: 1 });
    await store.transaction(async (tx) => {
      expect(await tx.get('wallets', 'a')).toEqual({ n: 1 });
      await tx.update('wallets', 'a', { n: 2 });
      expect(await tx.get('wallets', 'a')).toEqual({ n: 2 });
    });
    expect(await store.view.get('wallets', 'a')).toEqual({ n: 2 });
    await expect(
      store.transaction(async (tx) => {
        await tx.update('wallets', 'a', { n: 3 });
        expect(await tx.get('wallets', 'a')).toEqual({ n: 3 });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await store.view.get('wallets', 'a')).toEqual({ n: 2 });
    await store.transaction(async (tx) => {
      await tx.remove('wallets', 'a');
      expect(await tx.get('wallets', 'a')).toBeUndefined();
      expect(await tx.count('wallets')).toBe(0);
    });
    expect(await store.view.get('wallets', 'a')).toBeUndefined();
  });
});
