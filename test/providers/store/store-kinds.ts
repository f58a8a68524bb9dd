// The stores the conformance suite runs against, each made fresh per test.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Store } from '../../../src/core/ports/store.js';
import { MemoryStore } from '../../../src/providers/store/memory-store.js';
import { SqliteStore } from '../../../src/providers/store/sqlite-store.js';

/** One kind of store under test. */
export interface StoreKind {
  name: string;
  /** A new empty store; `fast` may trade durability for speed (many runs of a property). */
  create(options?: { fast?: boolean }): Store;
  /** Closes what `create` opened and removes its files. */
  cleanup(): Promise<void>;
}

function sqliteKind(): StoreKind {
  let dir: string | undefined;
  const opened: SqliteStore[] = [];
  let counter = 0;
  return {
    name: 'SqliteStore',
    create: ({ fast = false } = {}) => {
      dir ??= mkdtempSync(path.join(os.tmpdir(), 'store-conformance-'));
      const store = SqliteStore.open(fast ? ':memory:' : path.join(dir, `world-${++counter}.db`));
      opened.push(store);
      return store;
    },
    cleanup: async () => {
      for (const store of opened.splice(0)) await store.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    },
  };
}

/** Every Store implementation of the project. */
export const STORE_KINDS: StoreKind[] = [{ name: 'MemoryStore', create: () => new MemoryStore(), cleanup: async () => {} }, sqliteKind()];
