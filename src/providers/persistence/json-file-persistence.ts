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

  /** @throws Error naming the file when it exists but does not hold JSON */
  async load(): Promise<unknown> {
    try {
      await this.db.read();
    } catch (error) {
      // A bare JSON.parse message ("Unexpected token ...") does not say which file is broken.
      if (error instanceof SyntaxError) throw new Error(`${this.filename} does not hold saved state as JSON: ${error.message}`, { cause: error });
      throw error;
    }
    return this.db.data ?? undefined;
  }

  async save(state: unknown): Promise<void> {
    this.db.data = state;
    await this.db.write();
  }
}
