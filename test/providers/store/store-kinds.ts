// The stores the conformance suite runs against, each made fresh per test.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Store } from '../../../src/core/ports/store.js';
import { MemoryStore } from '../../../src/providers/store/memory-store.js';
import { SqliteStore } from '../../../src/providers/store/sqlite-store.js';
import { PostgresStore } from '../../../src/providers/store/postgres/postgres-store.js';
import { freshDatabase, postgresSkipReason } from '../../support/postgres.js';

/** One kind of store under test. */
export interface StoreKind {
  name: string;
  /** A new empty store; `fast` may trade durability for speed (many runs of a property). */
  create(options?: { fast?: boolean }): Promise<Store>;
  /**
   * Whether the store runs every transaction alone in one process (memory, SQLite): positions
   * have no gaps and a rolled-back insert gives its position back. A shared store (PostgreSQL)
   * runs transactions concurrently and may leave gaps (DECISIONS.md).
   */
  alone: boolean;
  /** Closes what `create` opened and removes its files. */
  cleanup(): Promise<void>;
}

function sqliteKind(): StoreKind {
  let dir: string | undefined;
  const opened: SqliteStore[] = [];
  let counter = 0;
  return {
    name: 'SqliteStore',
    alone: true,
    create: async ({ fast = false } = {}) => {
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

function postgresKind(): StoreKind {
  const opened: PostgresStore[] = [];
  return {
    name: 'PostgresStore',
    alone: false,
    create: async () => {
      const store = await PostgresStore.open(await freshDatabase(), { maxConnections: 5 });
      opened.push(store);
      return store;
    },
    cleanup: async () => {
      for (const store of opened.splice(0)) await store.close();
    },
  };
}

/** Every Store implementation of the project (PostgreSQL where a server can run; the reason is printed otherwise). */
export const STORE_KINDS: StoreKind[] = [{ name: 'MemoryStore', alone: true, create: async () => new MemoryStore(), cleanup: async () => {} }, sqliteKind(), ...(postgresSkipReason() === null ? [postgresKind()] : [])];
