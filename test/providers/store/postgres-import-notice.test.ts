// An import replaces the whole world, so the other processes hear of every collection, those the
// snapshot lacks included: a memory index or a faults gate of a collection the snapshot leaves
// out must still forget what it held.
import { describe, expect, it } from 'vitest';
import { closeAfter } from '../../support/close-after.js';
import { PostgresStore } from '../../../src/providers/store/postgres/postgres-store.js';
import { freshDatabase, postgresSkipReason } from '../../support/postgres.js';

const skip = postgresSkipReason();
if (skip) console.log(`postgres-import-notice: skipped, ${skip}`);

describe.skipIf(skip !== null)('an import on a PostgreSQL world', () => {
  const keep = closeAfter<PostgresStore>();

  it('tells the other processes that every collection changed, those the snapshot lacks included', async () => {
    const url = await freshDatabase();
    const here = keep(await PostgresStore.open(url, { maxConnections: 3 }));
    const there = keep(await PostgresStore.open(url, { maxConnections: 3 }));
    const heard: string[] = [];
    there.shared!.onRemoteCommit(() => heard.push('memories'), { collections: ['memories'] });
    there.shared!.onRemoteCommit(() => heard.push('sim_faults'), { collections: ['sim_faults'], latencyMs: 200 });
    const jobs = new Promise<void>((resolve) => there.shared!.onRemoteCommit(() => resolve(), { collections: ['jobs'] }));
    // Processes follow alike: this one's commits of jobs are announced at once.
    here.shared!.onRemoteCommit(() => {}, { collections: ['jobs'] });
    await here.import({ collections: { agents: { nextPosition: 1, rows: [] } } });
    // Notices arrive in commit order: once this one is heard, the import's was too.
    await here.transaction((tx) => tx.insert('jobs', 'j1', { id: 'j1' }));
    await jobs;
    expect(heard.sort()).toEqual(['memories', 'sim_faults']);
  });
});
