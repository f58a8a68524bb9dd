import { describe, expect, it } from 'vitest';
import type { RuntimeStateHost, SharedStore, Store, StoreTransaction } from '../../src/core/ports/store.js';
import { MemoryStore } from '../../src/providers/store/memory-store.js';
import { storeWithTransaction } from '../../src/runtime/operations/store-with-transaction.js';

describe('storeWithTransaction', () => {
  it('runs transactions through the replacement and everything else through the store', async () => {
    const inner = new MemoryStore();
    const ran: string[] = [];
    const store = storeWithTransaction(inner, (fn) => {
      ran.push('replacement');
      return inner.transaction(fn);
    });
    await store.transaction(async (tx: StoreTransaction) => tx.insert('things', 'a', { n: 1 }));
    expect(ran).toEqual(['replacement']);
    expect(store.view).toBe(inner.view);
    expect(await store.view.get('things', 'a')).toEqual({ n: 1 });
    expect(await store.unit(async () => 'done')).toBe('done');
    expect(await store.exclusive(() => 7)).toBe(7);
    expect(store.outside(async () => 1)).toBeInstanceOf(Promise);
    const snapshot = await store.export();
    await store.import({ collections: {} });
    expect(await inner.view.get('things', 'a')).toBeUndefined();
    await store.import(snapshot);
    expect(await inner.view.get('things', 'a')).toEqual({ n: 1 });
    let hooked = 0;
    store.onCommit(() => void hooked++);
    await inner.transaction(async (tx) => tx.insert('things', 'b', { n: 2 }));
    expect(hooked).toBe(1);
  });

  it('leaves out the optional members the store lacks, and follows those it has', async () => {
    const bare = storeWithTransaction(new MemoryStore(), (fn) => new MemoryStore().transaction(fn));
    expect('runtimeState' in bare).toBe(false);
    expect('shared' in bare).toBe(false);
    expect('close' in bare).toBe(false);

    const closed: string[] = [];
    const runtimeState = { load: async () => undefined } as unknown as RuntimeStateHost;
    const shared = {} as SharedStore;
    const inner = Object.assign(new MemoryStore(), {
      runtimeState,
      shared,
      async close(this: Store) {
        closed.push(this === inner ? 'inner' : 'other');
      },
    });
    const store = storeWithTransaction(inner, (fn) => inner.transaction(fn));
    expect(store.runtimeState).toBe(runtimeState);
    expect(store.shared).toBe(shared);
    await store.close?.();
    expect(closed).toEqual(['inner']);
  });
});
