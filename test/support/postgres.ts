// Fresh PostgreSQL databases for tests, copied from the run's migrated template.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { inject } from 'vitest';

const TEMPLATE_DATABASE = 'agent_services_template';

/** Why PostgreSQL tests cannot run here, or null when they can. */
export function postgresSkipReason(): string | null {
  // A run without the global setup (npm run test:fast) provides nothing.
  const provided = inject('postgres') as { url: string | null; reason: string | null } | undefined;
  return provided ? provided.reason : 'this run started no PostgreSQL (the fast loop)';
}

/** The URL of the run's server with another database name. */
function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.href;
}

/**
 * A new database of its own (migrated, empty) on the run's server; answers its URL.
 * `migrated: false` gives an empty database without the schema.
 */
export async function freshDatabase(options: { migrated?: boolean } = {}): Promise<string> {
  const url = (inject('postgres') as { url: string | null } | undefined)?.url;
  if (!url) throw new Error(`no PostgreSQL for tests: ${postgresSkipReason()}`);
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = postgres(url, { onnotice: () => {}, max: 1 });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.unsafe(options.migrated === false ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DATABASE}`);
        break;
      } catch (error) {
        // Two copies of the template at the same moment: one waits its turn.
        if (attempt >= 20 || !/being accessed by other users/.test(String(error))) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  } finally {
    await admin.end();
  }
  return withDatabase(url, name);
}
