import { describe, expect, it } from 'vitest';
import { expectApiError } from '../../support/transports.js';
import { walletWorld, wholeHistory } from './wallet-world.js';

describe('wallet balances and funding', () => {
  it('shows a new wallet as zeros at each precision, dated at agent creation', async () => {
    const world = await walletWorld();
    await world.runtime.sim.advance({ seconds: 60 });
    const alice = await world.agent('alice');
    expect(await alice.client.wallet.getBalance()).toEqual({
      fiat: { usd: '0.00', eur: '0.00' },
      crypto: { usdc: '0.000000', eth: '0.000000000000000000', sol: '0.000000000' },
      updated_at: '2026-01-01T00:01:00.000Z',
    });
  });

  it('opens a wallet with opening balances recorded as in records from outside', async () => {
    const world = await walletWorld();
    const alice = await world.agent('alice', { usd: '12.5', eth: '0.1', sol: '0' });
    expect((await alice.client.wallet.getBalance()).fiat.usd).toBe('12.50');
    const history = await wholeHistory(alice.client);
    expect(history.map((record) => [record.direction, record.asset, record.amount, record.from, record.status])).toEqual([
      ['in', 'eth', '0.100000000000000000', 'sim:opening_balance', 'confirmed'],
      ['in', 'usd', '12.50', 'sim:opening_balance', 'confirmed'],
    ]);
    expect((await world.sim.walletLedger()).assets.usd.funded_in).toBe('12.50');
  });

  it.each([
    ['usd', '1.001'],
    ['eth', '1e3'],
    ['sol', '-1'],
    ['usdc', ' 1'],
  ])('refuses an opening %s balance of "%s" with invalid_amount on balances.<asset> and creates nothing', async (asset, amount) => {
    const world = await walletWorld();
    await expectApiError(world.sim.createAgent({ name: 'alice', balances: { [asset]: amount } }), 400, 'invalid_amount', `balances.${asset}`);
    await expectApiError(world.runtime.anonymous().identity.getPublicProfile('alice'), 404, 'not_found');
    expect((await world.sim.walletLedger()).assets.usd.held).toBe('0.00');
    expect((await world.runtime.sim.events(0, 100)).events).toEqual([]);
  });

  it('refuses an unknown balance asset with invalid_request', async () => {
    const world = await walletWorld();
    await expectApiError(world.sim.createAgent({ name: 'alice', balances: { btc: '1' } as never }), 400, 'invalid_request', 'balances.btc');
  });

  it('funds by handle, handle with suffix or email, answering the in record and emitting wallet.funded', async () => {
    const world = await walletWorld();
    const alice = await world.agent('alice');
    const records = [
      await world.sim.fundWallet({ handle: 'alice', asset: 'usdc', amount: '1.5' }),
      await world.sim.fundWallet({ handle: 'alice.agents.test', asset: 'usdc', amount: '2' }),
      await world.sim.fundWallet({ handle: 'alice@agents.test', asset: 'usdc', amount: '0.000001' }),
    ];
    expect(records[0]).toEqual({
      id: expect.stringMatching(/^txn_/),
      direction: 'in',
      amount: '1.500000',
      asset: 'usdc',
      to: 'alice.agents.test',
      from: 'sim:fund',
      memo: '',
      status: 'confirmed',
      network: null,
      fee: { amount: '0.000000', asset: 'usdc' },
      created_at: '2026-01-01T00:00:00.000Z',
      reference: null,
    });
    expect((await alice.client.wallet.getBalance()).crypto.usdc).toBe('3.500001');
    expect((await world.runtime.sim.events(0, 100)).events.filter((event) => event.type === 'wallet.funded')).toHaveLength(3);
  });

  it('refuses funding an unknown agent (404 recipient_not_found) or a bad amount (400 invalid_amount)', async () => {
    const world = await walletWorld();
    await world.agent('alice');
    await expectApiError(world.sim.fundWallet({ handle: 'nobody', asset: 'usd', amount: '1' }), 404, 'recipient_not_found', 'handle');
    await expectApiError(world.sim.fundWallet({ handle: 'alice', asset: 'usd', amount: '0' }), 400, 'invalid_amount', 'amount');
    await expectApiError(world.sim.fundWallet({ handle: 'alice', asset: 'usd', amount: '0.001' }), 400, 'invalid_amount', 'amount');
  });

  it('holds huge values exactly', async () => {
    const world = await walletWorld();
    const alice = await world.agent('alice');
    await world.sim.fundWallet({ handle: 'alice', asset: 'eth', amount: '999999999999999999999999999999.999999999999999999' });
    await world.sim.fundWallet({ handle: 'alice', asset: 'eth', amount: '0.000000000000000001' });
    expect((await alice.client.wallet.getBalance()).crypto.eth).toBe('1000000000000000000000000000000.000000000000000000');
  });
});
