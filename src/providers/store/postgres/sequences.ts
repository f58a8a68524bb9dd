import type { Sql } from 'postgres';
import { sha256Hex } from '../../../core/shared/json.js';
import { sequenceName } from './postgres-schema.js';

/**
 * The position sequence of each collection. A sequence hands out positions without locking, so
 * concurrent inserts into one collection never wait for each other; a rolled-back insert leaves a
 * gap (DECISIONS.md allows gaps on PostgreSQL). Sequences are created once, outside any
 * transaction, and remembered by the process.
 */
export class Sequences {
  private readonly names = new Map<string, string>();

  constructor(private readonly sql: Sql) {}

  /** The sequence of `collection` when this process already made sure of it (no promise: every insert asks). */
  made(collection: string): string | undefined {
    return this.names.get(collection);
  }

  /** The sequence of `collection`, created when missing. */
  async ensure(collection: string): Promise<string> {
    const known = this.names.get(collection);
    if (known) return known;
    const name = sequenceName(collection, sha256Hex);
    for (let attempt = 0; ; attempt++) {
      try {
        await this.sql.unsafe(`CREATE SEQUENCE IF NOT EXISTS ${name}`);
        break;
      } catch (error) {
        // Two processes creating it at once: one loses a race on the catalog; the sequence exists.
        if (attempt >= 3) throw error;
      }
    }
    await this.sql`INSERT INTO agent_services_collections (name, sequence) VALUES (${collection}, ${name}) ON CONFLICT (name) DO NOTHING`;
    this.names.set(collection, name);
    return name;
  }

  /** The sequence of `collection` if it has one (no insert ever made one), without creating it. */
  async known(collection: string): Promise<string | undefined> {
    const known = this.names.get(collection);
    if (known) return known;
    const [row] = await this.sql`SELECT sequence FROM agent_services_collections WHERE name = ${collection}`;
    if (!row) return undefined;
    this.names.set(collection, row.sequence as string);
    return row.sequence as string;
  }

  /** Every collection with a sequence, and the position its next insert gets. */
  async nextPositions(): Promise<Map<string, number>> {
    const rows = await this.sql`SELECT name, sequence FROM agent_services_collections`;
    const next = new Map<string, number>();
    for (const row of rows) next.set(row.name as string, (await this.lastValue(row.sequence as string)) + 1);
    return next;
  }

  /** The last position a sequence handed out (0 when none). */
  async lastValue(sequence: string, sql: Pick<Sql, 'unsafe'> = this.sql): Promise<number> {
    // The name is one this class made (letters, digits, underscores): safe as an identifier.
    const [row] = await sql.unsafe(`SELECT last_value, is_called FROM ${sequence}`);
    return row!.is_called ? Number(row!.last_value) : Number(row!.last_value) - 1;
  }

  /** Sets the next position of `collection` (an import), creating its sequence when missing. */
  async setNext(collection: string, next: number, sql: Sql = this.sql): Promise<void> {
    const name = await this.ensure(collection);
    await sql`SELECT setval(${name}::text::regclass, ${next}, false)`;
  }

  /** Forgets what the process remembers (the database was replaced). */
  forget(): void {
    this.names.clear();
  }
}
