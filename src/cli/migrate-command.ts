import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { migrate, SCHEMA_VERSION, SchemaTooNewError } from '../providers/store/postgres/postgres-schema.js';
import { maskedUrl } from '../providers/store/postgres/open-postgres.js';
import { MIGRATE_USAGE } from './usage.js';

/**
 * `agent-services migrate --database URL` (or `DATABASE_URL`): creates the schema of a PostgreSQL
 * world, or brings it to this version's, and exits; `serve` does the same at start.
 * Answers the exit code: 0 done, 1 refused (unreachable, newer schema), 2 usage.
 */
export async function migrateCommand(args: string[], out: (line: string) => void, env: Readonly<Record<string, string | undefined>> = process.env): Promise<number> {
  let url: string | undefined;
  try {
    const { values } = parseArgs({ args, strict: true, options: { database: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
    if (values.help) {
      out(MIGRATE_USAGE);
      return 0;
    }
    url = values.database ?? (env.DATABASE_URL || undefined);
  } catch (error) {
    process.stderr.write(`agent-services migrate: ${(error as Error).message}\n${MIGRATE_USAGE}\n`);
    return 2;
  }
  if (!url) {
    process.stderr.write(`agent-services migrate: give --database URL or set DATABASE_URL\n${MIGRATE_USAGE}\n`);
    return 2;
  }
  const sql = postgres(url, { onnotice: () => {}, max: 1 });
  try {
    const found = await migrate(sql);
    out(found === SCHEMA_VERSION ? `${maskedUrl(url)}: schema version ${SCHEMA_VERSION}, nothing to do` : `${maskedUrl(url)}: schema version ${found} -> ${SCHEMA_VERSION}`);
    return 0;
  } catch (error) {
    const reason = error instanceof SchemaTooNewError ? error.message : `cannot be reached or migrated (${(error as Error).message})`;
    process.stderr.write(`agent-services migrate: ${maskedUrl(url)}: ${reason}\n`);
    return 1;
  } finally {
    await sql.end({ timeout: 1 });
  }
}
