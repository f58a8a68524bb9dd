import { closeSync, openSync, readSync } from 'node:fs';
import Database from 'better-sqlite3';
import { APPLICATION_ID, INDEXES, SCHEMA, SCHEMA_VERSION } from './sqlite-schema.js';

/** Options of opening a database file. */
export interface SqliteOpenOptions {
  /** Largest size of the database in pages of 4 KiB (SQLite's `max_page_count`): a quota, also used to test a full disk. */
  maxPages?: number;
  /** Skips `PRAGMA quick_check` at open (it reads every page once). */
  skipCheck?: boolean;
}

/** A database that cannot be used, with a message that says why and what to do. */
export class StoreOpenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreOpenError';
  }
}

const SQLITE_HEADER = 'SQLite format 3\0';

/** The first bytes of `filename`, or null when it does not exist or is empty. */
function leadingBytes(filename: string): Buffer | null {
  let fd: number;
  try {
    fd = openSync(filename, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new StoreOpenError(`${filename}: cannot be read (${(error as Error).message})`, { cause: error });
  }
  try {
    const buffer = Buffer.alloc(64);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return read === 0 ? null : buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

/** Translates SQLite's error codes into sentences for the person starting the server. */
function explain(filename: string, error: unknown): StoreOpenError {
  if (error instanceof StoreOpenError) return error;
  const code = (error as { code?: string }).code ?? '';
  const detail = (error as Error).message;
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new StoreOpenError(`${filename} is in use by another process (is another agent-services server running on it?); stop it first`, { cause: error });
  }
  if (code.startsWith('SQLITE_FULL')) return new StoreOpenError(`${filename}: no space left to write the database (${detail}); free some space and start again`, { cause: error });
  if (code.startsWith('SQLITE_NOTADB')) return new StoreOpenError(`${filename} is not a SQLite database`, { cause: error });
  if (code.startsWith('SQLITE_CORRUPT')) return new StoreOpenError(`${filename} is corrupt (${detail}); restore it from a backup or a /_sim/snapshot export`, { cause: error });
  if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_PERM')) {
    return new StoreOpenError(`${filename} cannot be opened for writing (${detail})`, { cause: error });
  }
  return new StoreOpenError(`${filename}: cannot open the database (${code || 'error'}: ${detail})`, { cause: error });
}

/**
 * Opens `filename` as an agent-services database for this process alone (an exclusive lock held
 * until close), creating the schema in a new file, and checks it before anything is served.
 * @throws StoreOpenError (locked, not a database, corrupt, newer format, no space)
 */
export function openDatabase(filename: string, options: SqliteOpenOptions = {}): Database.Database {
  const head = filename === ':memory:' ? null : leadingBytes(filename);
  if (head && !head.subarray(0, 16).equals(Buffer.from(SQLITE_HEADER, 'latin1'))) {
    const text = head.toString('utf8').trimStart();
    if (text.startsWith('{')) {
      throw new StoreOpenError(`${filename} holds a JSON world, not a database; start with --data ${filename.replace(/\.json$/i, '')}.db to import it`);
    }
    throw new StoreOpenError(`${filename} is not a SQLite database`);
  }
  let db: Database.Database | undefined;
  try {
    db = new Database(filename, { timeout: 0 });
    // Exclusive before WAL: the write-ahead log then lives in process memory instead of a
    // shared-memory file, and a second server on the same file fails at start instead of
    // interleaving its writes with ours.
    db.pragma('locking_mode = EXCLUSIVE');
    if (options.maxPages !== undefined) db.pragma(`max_page_count = ${Math.max(1, Math.floor(options.maxPages))}`);
    const journal = db.pragma('journal_mode = WAL', { simple: true });
    if (journal !== 'wal' && !(filename === ':memory:' && journal === 'memory')) throw new StoreOpenError(`${filename}: cannot use write-ahead logging (journal mode stays ${String(journal)})`);
    db.pragma('synchronous = FULL');
    // The exclusive lock is taken by the first write; take it now, before anything is served.
    db.exec('BEGIN EXCLUSIVE');
    const application = db.pragma('application_id', { simple: true }) as number;
    const version = db.pragma('user_version', { simple: true }) as number;
    const tables = (db.prepare("SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table'").pluck().get() as number) ?? 0;
    if (application !== APPLICATION_ID && (tables > 0 || version !== 0)) {
      throw new StoreOpenError(`${filename} is a SQLite database of another application (application_id ${application}), not an agent-services world`);
    }
    if (version > SCHEMA_VERSION) {
      throw new StoreOpenError(`${filename} was written by a newer agent-services (database format ${version}; this version reads format ${SCHEMA_VERSION}); upgrade agent-services to open it`);
    }
    if (tables === 0) {
      db.exec(SCHEMA + INDEXES);
      db.pragma(`application_id = ${APPLICATION_ID}`);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }
    db.exec('COMMIT');
    if (!options.skipCheck) {
      const verdict = db.pragma('quick_check', { simple: true });
      if (verdict !== 'ok') throw new StoreOpenError(`${filename} is corrupt (quick_check: ${String(verdict)}); restore it from a backup or a /_sim/snapshot export`);
    }
    return db;
  } catch (error) {
    try {
      if (db?.inTransaction) db.exec('ROLLBACK');
      db?.close();
    } catch {
      // Closing is best effort: the open already failed.
    }
    throw explain(filename, error);
  }
}
