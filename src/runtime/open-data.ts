import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { RuntimeSnapshot } from '../core/control/control.schema.js';
import { parseIso } from '../core/shared/time.js';
import type { StoreSnapshot } from '../core/ports/store.js';
import { SqliteStore } from '../providers/store/sqlite-store.js';

/** What the `data` option (`--data FILE`) opened: the database to serve and, when a JSON world was converted, a note for the user. */
export interface OpenedData {
  store: SqliteStore;
  /** The database file (FILE, or FILE's `.db` sibling for a JSON world). */
  database: string;
  /** Said once, when a JSON world was imported. */
  notice: string | null;
}

function looksLikeJson(file: string): boolean {
  if (/\.json$/i.test(file)) return true;
  try {
    return readFileSync(file, { encoding: 'utf8', flag: 'r' }).slice(0, 64).trimStart().startsWith('{');
  } catch {
    return false;
  }
}

/** The database a JSON world is imported into: `world.json` → `world.db`. */
export function databaseFor(jsonFile: string): string {
  return /\.json$/i.test(jsonFile) ? jsonFile.replace(/\.json$/i, '.db') : `${jsonFile}.db`;
}

/**
 * Opens the world of the `data` option (`--data FILE`): a SQLite database (created when missing). A JSON world of an
 * older version (`FILE.json` holding a snapshot) is imported once into `FILE.db`, its blob
 * directory copied beside it, and the user told to use the database from then on.
 * @throws Error (StoreOpenError) saying what is wrong with the file and how to go on
 */
export async function openData(file: string, serviceDomain: string): Promise<OpenedData> {
  if (!looksLikeJson(file)) return { store: SqliteStore.open(file), database: file, notice: null };
  const database = databaseFor(file);
  if (!existsSync(file)) {
    throw new Error(`--data ${file}: worlds are kept in SQLite databases now; start with --data ${database}`);
  }
  if (existsSync(database)) {
    throw new Error(`--data ${file} is a JSON world and ${database} already exists (it was imported before); start with --data ${database}`);
  }
  let snapshot: RuntimeSnapshot;
  try {
    const parsed = RuntimeSnapshot.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (!parsed.success) throw new Error(`${parsed.error.issues[0]?.path.join('.') || 'root'}: ${parsed.error.issues[0]?.message}`);
    snapshot = parsed.data;
  } catch (error) {
    throw new Error(`${file} does not hold an agent-services world as JSON (${(error as Error).message}); nothing was imported`);
  }
  if (snapshot.service_domain !== serviceDomain) {
    throw new Error(`${file} is a world of service domain ${snapshot.service_domain}; start with --service-domain ${snapshot.service_domain}`);
  }
  const store = SqliteStore.open(database);
  try {
    const state = { service_domain: snapshot.service_domain, clock_ms: parseIso(snapshot.clock.now)!, random: snapshot.random };
    // The import's commit saves the runtime state it is given; the runtime tracks its own later.
    store.runtimeState.track(
      () => state,
      () => {},
    );
    await store.import(snapshot.store as StoreSnapshot);
  } catch (error) {
    await store.close();
    for (const leftover of [database, `${database}-wal`, `${database}-shm`]) rmSync(leftover, { force: true });
    throw new Error(`${file}: the JSON world could not be imported into ${database} (${(error as Error).message})`);
  }
  if (existsSync(`${file}.blobs`) && !existsSync(`${database}.blobs`)) cpSync(`${file}.blobs`, `${database}.blobs`, { recursive: true });
  return { store, database, notice: `imported the JSON world ${file} into ${database}; start with --data ${database} from now on (${file} is left as it was)` };
}
