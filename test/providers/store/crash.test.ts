// serve --data under SIGKILL: the crash soak of scripts/soak-store.ts, 10 kills (npm run soak runs 200).
import { beforeAll, describe, expect, it } from 'vitest';
import { crashSoak } from '../../../scripts/soak-store.js';
import { CLI, ensureBuilt } from '../../cli/ensure-built.js';

beforeAll(async () => {
  await ensureBuilt();
}, 300_000);

describe('serve --data killed with SIGKILL at seeded random moments', () => {
  it('keeps every acknowledged request exactly once, replays retried keys, balances the ledger and loses no confirmation', async () => {
    const report = await crashSoak({ kills: 10, seed: 20_261_123, cli: CLI });
    expect(report.problems).toEqual([]);
    expect(report.kills).toBe(10);
    // The run must have had something to check: requests answered just before a kill.
    expect(report.acknowledgedBeforeKill).toBeGreaterThan(0);
  }, 900_000);
});
