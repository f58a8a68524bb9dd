import type { Sql } from 'postgres';
import type { RuntimeState, RuntimeStateHost } from '../../../core/ports/store.js';
import { sha256Hex } from '../../../core/shared/json.js';
import { META } from './postgres-schema.js';

/**
 * The runtime's state in a world that many processes serve: the service domain and the random
 * state the world was created with, the furthest point any process moved the simulated clock,
 * and how many processes have started on it. Each process continues from its own fork of the
 * random state (the world's state and its start number, hashed), so no two processes ever draw
 * the same ids; a restarted process gets a fresh fork.
 */
export class PostgresRuntimeState implements RuntimeStateHost {
  private read: (() => RuntimeState) | undefined;
  private created = false;
  private lastClock: number | undefined;

  constructor(
    private readonly sql: Sql,
    /** Tells the other processes that the clock moved. */
    private readonly announceClock: () => Promise<void>,
  ) {}

  async load(): Promise<RuntimeState | undefined> {
    const meta = await this.meta();
    const domain = meta.get(META.serviceDomain);
    const random = meta.get(META.random);
    const clock = meta.get(META.clockMs);
    if (domain === undefined || random === undefined || clock === undefined) return undefined;
    this.created = true;
    const [row] = await this.sql`INSERT INTO agent_services_meta (key, value) VALUES (${META.epoch}, '1')
      ON CONFLICT (key) DO UPDATE SET value = (agent_services_meta.value::bigint + 1)::text RETURNING value`;
    const epoch = row!.value as string;
    this.lastClock = Number(clock);
    // Live worlds draw from the operating system and keep no state to fork.
    return { service_domain: domain, clock_ms: Number(clock), random: random === '' ? '' : sha256Hex(`${random}/${epoch}`).slice(0, 32) };
  }

  track(read: () => RuntimeState): void {
    this.read = read;
  }

  /**
   * Statements that create the world's state with the first commit of a new world (queued with
   * that commit, so a world exists exactly when something was written to it); none afterwards.
   */
  creationStatements(): Array<{ text: string; params: unknown[] }> {
    if (this.created || !this.read) return [];
    this.created = true;
    const state = this.read();
    this.lastClock = state.clock_ms;
    const insert = 'INSERT INTO agent_services_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING';
    return [
      { text: insert, params: [META.serviceDomain, state.service_domain] },
      { text: insert, params: [META.random, state.random] },
      { text: insert, params: [META.clockMs, String(state.clock_ms)] },
    ];
  }

  /** Saves the clock when it moved (never backwards: the furthest any process reached wins) and tells the others. */
  async save(): Promise<void> {
    if (!this.read) return;
    const state = this.read();
    if (!this.created) {
      await this.sql.begin(async (tx) => {
        for (const statement of this.creationStatements()) await tx.unsafe(statement.text, statement.params as never[]);
      });
    }
    if (state.clock_ms === this.lastClock) return;
    this.lastClock = state.clock_ms;
    await this.sql`INSERT INTO agent_services_meta (key, value) VALUES (${META.clockMs}, ${String(state.clock_ms)})
      ON CONFLICT (key) DO UPDATE SET value = GREATEST(agent_services_meta.value::bigint, excluded.value::bigint)::text`;
    await this.announceClock();
  }

  /** The saved clock, if the world exists. */
  async savedClock(): Promise<number | undefined> {
    const [row] = await this.sql`SELECT value FROM agent_services_meta WHERE key = ${META.clockMs}`;
    return row ? Number(row.value) : undefined;
  }

  private async meta(): Promise<Map<string, string>> {
    const rows = await this.sql`SELECT key, value FROM agent_services_meta`;
    return new Map(rows.map((row) => [row.key as string, row.value as string]));
  }
}
