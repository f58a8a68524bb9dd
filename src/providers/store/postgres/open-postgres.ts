import { PostgresStore } from './postgres-store.js';
import { SchemaTooNewError } from './postgres-schema.js';

/** The URL without its password, for messages. */
export function maskedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.href;
  } catch {
    return 'the given database URL';
  }
}

/**
 * Opens the PostgreSQL world of the `database` option, creating or upgrading its schema.
 * @throws Error in one line: the database cannot be reached (and why), or is of a newer schema
 */
export async function openDatabase(url: string, options: { migrate?: boolean } = {}): Promise<PostgresStore> {
  if (!/^postgres(ql)?:\/\//.test(url)) throw new Error(`--database must be a postgres:// URL, got "${maskedUrl(url)}"`);
  try {
    return await PostgresStore.open(url, options);
  } catch (error) {
    if (error instanceof SchemaTooNewError) throw new Error(`${maskedUrl(url)}: ${error.message}`);
    throw new Error(`the database ${maskedUrl(url)} cannot be reached or opened (${(error as Error).message})`);
  }
}
