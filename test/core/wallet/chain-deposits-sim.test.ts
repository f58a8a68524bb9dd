import { describe, expect, it } from 'vitest';
import { expectApiError } from '../../support/transports.js';
import { walletWorld, wholeHistory } from './wallet-world.js';

describe('POST /_sim/chain/deposits on simulated networks', () => {
  it('shows a pending in record at once, then credits it once when the fake chain confirms', async () => {
    const world = await walletWorld();
    const alice = await world.agent('alice');
    const address = (await alice.client.wallet.getAddresses()).addresses.find((entry) => entry.network === 'base')!.address;
    const from = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    const deposit = await world.sim.chainDeposit({ network: 'base', asset: 'usdc', amount: '12.5', to: 'alice', from });
    expect(deposit).toEqual({ network: 'base', reference: expect.stringMatching(/^0x[0-9a-f]{64}$/), to: address, asset: 'usdc', amount: '12.500000' });
    const [seen] = await wholeHistory(alice.client);
    expect(seen).toMatchObject({ direction: 'in', status: 'pending', amount: '12.500000', from, network: 'base', reference: deposit.reference });
    expect((await alice.client.wallet.getBalance()).crypto.usdc).toBe('0.000000');
    await world.sim.advanceClock({ seconds: 4 });
    expect((await alice.client.wallet.getTransaction(seen!.id)).status).toBe('confirmed');
    expect((await alice.client.wallet.getBalance()).crypto.usdc).toBe('12.500000');
    const events = (await world.runtime.sim.events(0, 1000)).events.filter((event) => event.data.transaction_id === seen!.id);
    expect(events.map((event) => event.type)).toEqual(['wallet.transaction.created', 'wallet.transaction.updated']);
    expect(await world.sim.chainHoldings({ network: 'base' })).toMatchObject({ ledger: { usdc: '12.500000', eth: '0.000000000000000000' } });
    await world.sim.advanceClock({ seconds: 60 });
    expect((await alice.client.wallet.getBalance()).crypto.usdc).toBe('12.500000');
  });

  it('takes a custody address as `to`, and counts sends against what the ledger owes on the network', async () => {
    const world = await walletWorld();
    const bob = await world.agent('bob');
    const solana = (await bob.client.wallet.getAddresses()).addresses.find((entry) => entry.network === 'solana')!.address;
    await world.sim.chainDeposit({ network: 'solana', asset: 'sol', amount: '2', to: solana });
    await world.sim.advanceClock({ seconds: 1 });
    expect((await bob.client.wallet.getBalance()).crypto.sol).toBe('2.000000000');
    await bob.client.wallet.send({ to: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', amount: '1', asset: 'sol' });
    expect((await world.sim.chainHoldings({ network: 'solana' })).ledger.sol).toBe('0.999995000');
  });

  it('refuses bad deposits with the contract errors', async () => {
    const world = await walletWorld();
    await world.agent('alice');
    await expectApiError(world.sim.chainDeposit({ network: 'solana', asset: 'eth', amount: '1', to: 'alice' }), 400, 'unsupported_network', 'network');
    await expectApiError(world.sim.chainDeposit({ network: 'base', asset: 'eth', amount: '-1', to: 'alice' }), 400, 'invalid_amount', 'amount');
    await expectApiError(world.sim.chainDeposit({ network: 'base', asset: 'eth', amount: '1', to: 'nobody' }), 404, 'recipient_not_found', 'to');
    await expectApiError(world.sim.chainDeposit({ network: 'base', asset: 'eth', amount: '1', to: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359' }), 404, 'recipient_not_found', 'to');
    await expectApiError(world.sim.chainDeposit({ network: 'base', asset: 'eth', amount: '1', to: 'alice', from: 'nope' }), 400, 'invalid_request', 'from');
  });
});
