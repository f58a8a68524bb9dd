import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, connect, connectSim, createRuntime, serve, type AgentClient, type RunningServer, type Runtime } from '../../../src/index.js';
import { EVM_ADDRESS, IBAN, wholeHistory } from './wallet-world.js';

type Way = 'in-process' | 'http';

async function open(way: Way): Promise<{ runtime: Runtime; server: RunningServer | null; agent(name: string, usd: string, usdc?: string): Promise<AgentClient> }> {
  const runtime = await createRuntime({ seed: 11 });
  const server = way === 'http' ? await serve(runtime, { port: 0 }) : null;
  const sim = server ? connectSim({ baseUrl: server.url }) : runtime.simClient();
  return {
    runtime,
    server,
    agent: async (name, usd, usdc = '0') => {
      const created = await sim.createAgent({ name, balances: { usd, usdc } });
      return server ? connect({ baseUrl: server.url, apiKey: created.api_key }) : runtime.agent(created.api_key);
    },
  };
}

describe.each<Way>(['in-process', 'http'])('wallet.send under concurrency (%s)', (way) => {
  let server: RunningServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  it('lets exactly the affordable ones of 40 concurrent sends through; the rest answer 402 and nothing is overdrawn', async () => {
    const world = await open(way);
    server = world.server;
    const alice = await world.agent('alice', '100');
    const bob = await world.agent('bob', '0');
    const outcomes = await Promise.allSettled(Array.from({ length: 40 }, () => alice.wallet.send({ to: 'bob', amount: '7', asset: 'usd' })));
    const ok = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const refused = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(ok).toHaveLength(14);
    expect(refused).toHaveLength(26);
    for (const outcome of refused) expect([(outcome.reason as ApiError).status, (outcome.reason as ApiError).code]).toEqual([402, 'insufficient_funds']);
    expect((await alice.wallet.getBalance()).fiat.usd).toBe('2.00');
    expect((await bob.wallet.getBalance()).fiat.usd).toBe('98.00');
    expect(await wholeHistory(bob)).toHaveLength(14);
  });

  it('counts the fee: 30 concurrent on-chain sends of 1 usdc + 0.01 from 10 usdc give exactly 9', async () => {
    const world = await open(way);
    server = world.server;
    const alice = await world.agent('alice', '0', '10');
    const outcomes = await Promise.allSettled(Array.from({ length: 30 }, () => alice.wallet.send({ to: EVM_ADDRESS, amount: '1', asset: 'usdc' })));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(9);
    expect((await alice.wallet.getBalance()).crypto.usdc).toBe('0.910000');
  });

  it('refuses a double spend: two concurrent sends of 60 from 100 to different rails, exactly one wins', async () => {
    const world = await open(way);
    server = world.server;
    const alice = await world.agent('alice', '100');
    await world.agent('bob', '0');
    const outcomes = await Promise.allSettled([alice.wallet.send({ to: 'bob', amount: '60', asset: 'usd' }), alice.wallet.send({ to: IBAN, amount: '60', asset: 'usd' })]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    const balance = (await alice.wallet.getBalance()).fiat.usd;
    expect(['40.00', '39.80']).toContain(balance);
  });

  it('conserves money while many agents pay each other concurrently', async () => {
    const world = await open(way);
    server = world.server;
    const names = ['a1', 'a2', 'a3', 'a4', 'a5'];
    const clients = await Promise.all(names.map((name) => world.agent(name, '10')));
    await Promise.allSettled(Array.from({ length: 60 }, (_, i) => clients[i % 5]!.wallet.send({ to: names[(i * 3 + 1) % 5]!, amount: String((i % 4) + 1), asset: 'usd' })));
    const balances = await Promise.all(clients.map(async (client) => Number((await client.wallet.getBalance()).fiat.usd.replace('.', ''))));
    expect(balances.every((cents) => cents >= 0)).toBe(true);
    expect(balances.reduce((sum, cents) => sum + cents, 0)).toBe(5000);
  });
});
