import { Low } from 'lowdb';
import type { Persistence } from '../../core/ports/persistence.js';
import { canonicalJson } from '../../core/shared/json.js';
import { AtomicJsonFile } from './atomic-json-file.js';

/**
 * Keeps a runtime's state in one canonical-JSON file through lowdb, written atomically
 * ({@link AtomicJsonFile}). Callers must not overlap saves; the runtime's group commit ensures it.
 */
export class JsonFilePersistence implements Persistence {
  private readonly db: Low<unknown>;

  constructor(readonly filename: string) {
    this.db = new Low<unknown>(new AtomicJsonFile<unknown>(filename, canonicalJson), null);
  }

  async load(): Promise<unknown> {
    await this.db.read();
    return this.db.data ?? undefined;
  }

  async save(state: unknown): Promise<void> {
    this.db.data = state;
    await this.db.write();
  }
}
