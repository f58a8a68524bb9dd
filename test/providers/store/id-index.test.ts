import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashOfId, IdIndex } from '../../../src/providers/store/id-index.js';

interface Item {
  id: string;
  n: number;
}

type Op = { kind: 'add'; id: string } | { kind: 'delete'; id: string } | { kind: 'get'; id: string };

/** Ids of a few kinds: short, long with random ends (as the store's), and long ones sharing both ends (they collide). */
const ids = fc.oneof(
  fc.constantFrom('a', 'b', 'c', 'agt_1', '1', '2'),
  fc.integer({ min: 0, max: 40 }).map((n) => `agt_AAAAAAAAAAAAAAAAAAAAAAAA:txn_${String(n).padStart(24, 'x')}`),
  fc.integer({ min: 0, max: 200 }).map((n) => `same-start-${n}-${'y'.repeat(30)}-same-end-0123456789`),
);
const ops = fc.array(
  fc.oneof(
    { weight: 5, arbitrary: ids.map((id): Op => ({ kind: 'add', id })) },
    { weight: 2, arbitrary: ids.map((id): Op => ({ kind: 'delete', id })) },
    { weight: 2, arbitrary: ids.map((id): Op => ({ kind: 'get', id })) },
  ),
  { maxLength: 400 },
);

/** Runs `ops` on an index and on a Map (the meaning it keeps): same answers, same size, same order. */
function expectLikeMap(index: IdIndex<Item>, list: Op[]): void {
  const model = new Map<string, Item>();
  let n = 0;
  for (const op of list) {
    if (op.kind === 'add') {
      const item = { id: op.id, n: n++ };
      const fresh = !model.has(op.id);
      expect(index.add(item)).toBe(fresh);
      if (fresh) model.set(op.id, item);
      expect(index.get(op.id)).toBe(model.get(op.id));
    } else if (op.kind === 'delete') {
      const held = model.get(op.id);
      if (held) {
        index.delete(held);
        model.delete(op.id);
      }
      expect(index.get(op.id)).toBeUndefined();
    } else {
      expect(index.get(op.id)).toBe(model.get(op.id));
    }
    expect(index.size).toBe(model.size);
  }
  expect([...index.values()]).toEqual([...model.values()]);
  for (const [id, item] of model) expect(index.get(id)).toBe(item);
}

describe('IdIndex', () => {
  it('answers as a Map would, as a map, as a table and after giving way to a map', () => {
    fc.assert(
      fc.property(ops, fc.constantFrom(1, 4, 64, 2048), (list, tableFrom) => expectLikeMap(new IdIndex<Item>(tableFrom), list)),
      { numRuns: 300 },
    );
  });

  it('keeps 100,000 rows with removals as a Map would', () => {
    const index = new IdIndex<Item>();
    const model = new Map<string, Item>();
    for (let n = 0; n < 100_000; n++) {
      const item = { id: `agt_${n % 7}:txn_${n.toString(36).padStart(24, '0')}`, n };
      expect(index.add(item)).toBe(true);
      model.set(item.id, item);
      if (n % 3 === 0) {
        const gone = model.get(`agt_${(n - 3) % 7}:txn_${(n - 3).toString(36).padStart(24, '0')}`);
        if (gone) {
          index.delete(gone);
          model.delete(gone.id);
        }
      }
    }
    expect(index.size).toBe(model.size);
    expect(index.add({ id: `agt_1:txn_${(1).toString(36).padStart(24, '0')}`, n: -1 })).toBe(false);
    expect([...index.values()]).toEqual([...model.values()]);
  });

  it('keeps its row array near its rows when the same rows are taken out and put back again and again', () => {
    const index = new IdIndex<Item>(16);
    const items = Array.from({ length: 100 }, (_, n) => ({ id: `agt_${n}:txn_${String(n).padStart(20, '0')}`, n }));
    for (const item of items) index.add(item);
    for (let round = 0; round < 2_000; round++) {
      const item = items[round % items.length]!;
      index.delete(item);
      expect(index.add(item)).toBe(true);
    }
    expect(index.size).toBe(100);
    expect((index as unknown as { rows: unknown[] }).rows.length).toBeLessThanOrEqual(2 * 100 + 16);
    expect(index.get(items[7]!.id)).toBe(items[7]);
  });

  it('hashes ids that differ only in the middle of a long id alike (their probes are then long, and the index becomes a map)', () => {
    const a = `agt_AAAAAAAA${'m'.repeat(10)}:txn_0123456789abcdef`;
    const b = `agt_AAAAAAAA${'n'.repeat(10)}:txn_0123456789abcdef`;
    expect(hashOfId(a)).toBe(hashOfId(b));
    const index = new IdIndex<Item>(1);
    const items = Array.from({ length: 500 }, (_, n) => ({ id: `agt_AAAAAAAA${String(n).padStart(10, 'm')}:txn_0123456789abcdef`, n }));
    for (const item of items) expect(index.add(item)).toBe(true);
    // The probes ran long: the index gave way to a Map, for good.
    expect((index as unknown as { map: Map<string, Item> | null }).map).toBeInstanceOf(Map);
    for (const item of items) expect(index.get(item.id)).toBe(item);
    expect([...index.values()]).toEqual(items);
    index.delete(items[0]!);
    expect(index.add({ id: 'agt_short', n: -1 })).toBe(true);
    expect((index as unknown as { map: Map<string, Item> | null }).map).toBeInstanceOf(Map);
  });
});
