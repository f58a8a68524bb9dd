// Starts one throwaway PostgreSQL for the whole test run (or uses AGENT_SERVICES_TEST_DATABASE_URL)
// and a migrated template database that each test copies: a fresh database costs ~25 ms.
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { migrate } from '../../src/providers/store/postgres/postgres-schema.js';
import { postgresUnavailableReason, startThrowawayPostgres } from './throwaway-postgres.js';

/** The name of the migrated database every test database is copied from. */
export const TEMPLATE_DATABASE = 'agent_services_template';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The server tests make their databases on, or why there is none. */
    postgres: { url: string | null; reason: string | null };
  }
}

export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  const given = process.env.AGENT_SERVICES_TEST_DATABASE_URL;
  const reason = given ? undefined : postgresUnavailableReason();
  if (reason) {
    process.stdout.write(`PostgreSQL tests will be skipped: ${reason}\n`);
    project.provide('postgres', { url: null, reason });
    return undefined;
  }
  const server = given ? undefined : await startThrowawayPostgres();
  const url = given ?? server!.url;
  const admin = postgres(url, { onnotice: () => {}, max: 1 });
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE}`);
    await admin.unsafe(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  } finally {
    await admin.end();
  }
  const templateUrl = new URL(url);
  templateUrl.pathname = `/${TEMPLATE_DATABASE}`;
  const template = postgres(templateUrl.href, { onnotice: () => {}, max: 1 });
  try {
    await migrate(template);
  } finally {
    await template.end();
  }
  project.provide('postgres', { url, reason: null });
  return () => server?.stop();
}
