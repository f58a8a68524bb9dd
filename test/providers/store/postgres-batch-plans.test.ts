// The plans PostgreSQL makes for the batch function's reads: a read of records by id probes the
// primary key for each id, whatever the size of their collection. Plans are read from
// auto_explain, which sends each nested statement's plan to this session as a NOTICE.
import postgres, { type Notice, type Sql } from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { RUN_BATCH } from '../../../src/providers/store/postgres/batch-function.js';
import { freshDatabase, postgresSkipReason } from '../../support/postgres.js';

const skip = postgresSkipReason();
if (skip) console.log(`postgres-batch-plans: skipped, ${skip}`);

/** The plans of the statements run inside the batch function whose text contains `marker`. */
function plansOf(notices: readonly Notice[], marker: string): string[] {
  return notices.map((notice) => String(notice.message)).filter((message) => message.includes('Query Text:') && message.includes(marker));
}

describe.skipIf(skip !== null)('PostgreSQL batch function plans', () => {
  const pools: Sql[] = [];
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.end({ timeout: 1 })));
  });

  it("reads locked records ('f') through the primary key, one probe per id, in a collection of thousands", async () => {
    const url = await freshDatabase();
    const notices: Notice[] = [];
    const sql = postgres(url, { max: 1, onnotice: (notice) => void notices.push(notice) });
    pools.push(sql);
    // A world grown since its statistics were last gathered: 3,000 wallets, not analyzed.
    await sql`INSERT INTO agent_services_records (collection, id, part, position, record)
      SELECT 'wallets', 'agt_' || g, '', g, '{"n":' || g || '}' FROM generate_series(1, 3000) g`;
    await sql`LOAD 'auto_explain'`;
    await sql`SET auto_explain.log_min_duration = 0`;
    await sql`SET auto_explain.log_nested_statements = on`;
    await sql`SET auto_explain.log_analyze = on`;
    await sql`SET auto_explain.log_timing = off`;
    await sql`SET auto_explain.log_level = notice`;
    // More calls than PostgreSQL's five custom plans, so the cached generic plan is seen too.
    for (let call = 0; call < 8; call++) {
      const rows = await sql.unsafe(RUN_BATCH, [JSON.stringify([['f', 'wallets', ['agt_17', 'agt_2999', 'agt_none']]])], { prepare: true });
      expect(rows.map((row) => [row.i, row.id, row.record]).sort()).toEqual([
        [0, 'agt_17', '{"n":17}'],
        [0, 'agt_2999', '{"n":2999}'],
      ]);
    }
    const plans = plansOf(notices, 'jsonb_array_elements_text(op->2)');
    expect(plans).toHaveLength(8);
    for (const plan of plans) {
      expect(plan).toContain('Index Scan using agent_services_records_pkey');
      expect(plan).not.toContain('Rows Removed by Filter');
      expect(plan).not.toContain('Bitmap');
    }
  });
});
