import { open, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import type { Adapter } from 'lowdb';

/**
 * A lowdb adapter whose writes survive a crash at any instant: the new text goes to a temporary
 * file in the same directory, is fsynced, renamed over the old file (atomic on POSIX), and the
 * directory is fsynced so the rename itself is durable. lowdb's own file adapter renames but
 * never fsyncs, so a power loss could leave an empty file behind.
 */
export class AtomicJsonFile<T> implements Adapter<T> {
  private readonly temporary: string;

  constructor(
    private readonly filename: string,
    private readonly stringify: (data: T) => string = (data) => JSON.stringify(data),
  ) {
    this.temporary = path.join(path.dirname(filename), `.${path.basename(filename)}.tmp`);
  }

  async read(): Promise<T | null> {
    let text: string;
    try {
      text = await readFile(this.filename, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    return JSON.parse(text) as T;
  }

  async write(data: T): Promise<void> {
    const file = await open(this.temporary, 'w');
    try {
      await file.writeFile(this.stringify(data), 'utf8');
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(this.temporary, this.filename);
    const directory = await open(path.dirname(this.filename), 'r');
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
  }
}
