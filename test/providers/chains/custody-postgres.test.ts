// Custody indexes of a world two runtimes serve on one PostgreSQL database (two stores, two
// connection pools: what two processes have). Agents created at once through both get distinct
// indexes, so no custody address is ever handed to two agents.
import { afterAll, describe, expect, it } from 'vitest';
import { closeAfter } from '../../support/close-after.js';
import { createRuntime, type Runtime } from '../../../src/index.js';
import { freshDatabase, postgresSkipReason } from '../../support/postgres.js';
import { TEST_MNEMONIC } from './chain-world.js';

const skip = postgresSkipReason();
if (skip) console.log(`skipping the PostgreSQL custody tests: ${skip}`);

const keep = closeAfter<Runtime>(afterAll);

describe.skipIf(skip !== null)('custody indexes across the processes of one PostgreSQL world', () => {
  it('gives 24 agents created at once through two runtimes 24 distinct addresses, none the hot wallet', async () => {
    const database = await freshDatabase();
    const options = { seed: 1, database, wallet: { custodyMnemonic: TEST_MNEMONIC } };
    const [a, b] = await Promise.all([createRuntime(options), createRuntime(options)]);
    keep(a);
    keep(b);
    const created = await Promise.all(Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? a : b).createAgent({ name: `agent-${i}` })));
    const addresses = await Promise.all(created.map(async (agent, i) => (await (i % 3 === 0 ? b : a).agent(agent.api_key).wallet.getAddresses()).addresses));
    const evm = addresses.map((list) => list.find((entry) => entry.network === 'ethereum')!.address);
    const solana = addresses.map((list) => list.find((entry) => entry.network === 'solana')!.address);
    expect(new Set(evm).size).toBe(24);
    expect(new Set(solana).size).toBe(24);
    // Index 0 (the hot wallet, Hardhat's first account for this mnemonic) is never an agent's.
    expect(evm).not.toContain('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    // Indexes 1..24, each once: the same addresses a single process would have handed out.
    const single = keep(await createRuntime({ seed: 1, wallet: { custodyMnemonic: TEST_MNEMONIC } }));
    const expected = await Promise.all(Array.from({ length: 24 }, async (_, i) => (await single.agent((await single.createAgent({ name: `one-${i}` })).api_key).wallet.getAddresses()).addresses[0]!.address));
    expect([...evm].sort()).toEqual([...expected].sort());
  });
});
