import { beforeEach, describe, expect, it } from 'vitest';
import { expectApiError } from '../../support/transports.js';
import { ABA, EVM_ADDRESS, IBAN, SOLANA_ADDRESS, balancesOf, walletWorld, wholeHistory, type WalletAgent, type WalletWorld } from './wallet-world.js';

describe('wallet.send', () => {
  let world: WalletWorld;
  let alice: WalletAgent;
  let bob: WalletAgent;

  beforeEach(async () => {
    world = await walletWorld();
    alice = await world.agent('alice', { usd: '100', eur: '50', usdc: '1000', eth: '2', sol: '30' });
    bob = await world.agent('bob');
  });

  describe('book transfers', () => {
    it.each(['bob', 'bob.agents.test', 'BOB.agents.test', 'bob@agents.test'])('moves money to %s at once with fee 0 and gives bob an in record with the same id', async (to) => {
      const sent = await alice.client.wallet.send({ to, amount: '12.5', asset: 'usd', memo: 'lunch' });
      expect(sent).toEqual({ transaction_id: expect.stringMatching(/^txn_/), status: 'confirmed', fee: { amount: '0.00', asset: 'usd' }, sent_at: '2026-01-01T00:00:00.000Z' });
      expect((await alice.client.wallet.getBalance()).fiat.usd).toBe('87.50');
      expect((await bob.client.wallet.getBalance()).fiat.usd).toBe('12.50');
      const out = await alice.client.wallet.getTransaction(sent.transaction_id);
      const received = await bob.client.wallet.getTransaction(sent.transaction_id);
      expect(out).toEqual({
        id: sent.transaction_id,
        direction: 'out',
        amount: '12.50',
        asset: 'usd',
        to,
        from: 'alice.agents.test',
        memo: 'lunch',
        status: 'confirmed',
        network: null,
        fee: { amount: '0.00', asset: 'usd' },
        created_at: '2026-01-01T00:00:00.000Z',
        reference: null,
      });
      expect(received).toEqual({ ...out, direction: 'in' });
    });

    it('moves any asset, eth at 18 places', async () => {
      await alice.client.wallet.send({ to: 'bob', amount: '0.000000000000000001', asset: 'eth' });
      expect((await bob.client.wallet.getBalance()).crypto.eth).toBe('0.000000000000000001');
      expect((await alice.client.wallet.getBalance()).crypto.eth).toBe('1.999999999999999999');
    });

    it('keeps decimals exact: "0.1" then "0.2" eth leave exactly 0.3 less', async () => {
      await alice.client.wallet.send({ to: 'bob', amount: '0.1', asset: 'eth' });
      await alice.client.wallet.send({ to: 'bob', amount: '0.2', asset: 'eth' });
      expect((await bob.client.wallet.getBalance()).crypto.eth).toBe('0.300000000000000000');
      expect((await alice.client.wallet.getBalance()).crypto.eth).toBe('1.700000000000000000');
    });

    it('accepts a network that carries the asset and ignores it for a book transfer', async () => {
      const sent = await alice.client.wallet.send({ to: 'bob', amount: '1', asset: 'usdc', network: 'solana' });
      expect(sent.fee.amount).toBe('0.000000');
      expect((await bob.client.wallet.getTransaction(sent.transaction_id)).network).toBeNull();
    });

    it('emits wallet.transaction.created for both agents and counts a confirmed payment for reputation', async () => {
      const before = (await bob.client.identity.getProfile()).reputation;
      const after = (await world.runtime.sim.events(0, 1000)).events.length;
      const sent = await alice.client.wallet.send({ to: 'bob', amount: '1', asset: 'usd' });
      const events = (await world.runtime.sim.events(after, 100)).events;
      expect(events.map((event) => [event.type, event.agent_id, event.data.direction])).toEqual([
        ['wallet.transaction.created', alice.agent_id, 'out'],
        ['wallet.transaction.created', bob.agent_id, 'in'],
      ]);
      expect(events[0]!.data.transaction_id).toBe(sent.transaction_id);
      expect((await bob.client.identity.getProfile()).reputation).toBe(before + 5);
    });

    it('stops counting payments at 16, where the reputation of payments is full, and writes no counter past it', async () => {
      const counters = async () => (await world.runtime.sim.snapshot()).store.collections.activity?.rows.map(([id, , , record]) => [id, (record as { payments_confirmed?: number }).payments_confirmed]);
      for (let i = 0; i < 15; i++) await alice.client.wallet.send({ to: 'bob', amount: '0.01', asset: 'usd' });
      const beforeCeiling = (await bob.client.identity.getProfile()).reputation;
      await alice.client.wallet.send({ to: 'bob', amount: '0.01', asset: 'usd' });
      const atCeiling = (await bob.client.identity.getProfile()).reputation;
      expect(atCeiling).toBe(beforeCeiling + 5);
      const at16 = await counters();
      expect(at16).toEqual(
        expect.arrayContaining([
          [alice.agent_id, 16],
          [bob.agent_id, 16],
        ]),
      );
      const activityWrites = (await world.runtime.sim.snapshot()).store.collections.activity;
      for (let i = 0; i < 4; i++) await alice.client.wallet.send({ to: 'bob', amount: '0.01', asset: 'usd' });
      expect(await counters()).toEqual(at16);
      // Untouched rows: the very records exported before (the memory store hands out its own), none rewritten.
      const after = (await world.runtime.sim.snapshot()).store.collections.activity!.rows;
      after.forEach(([, , , record], i) => expect(record).toBe(activityWrites!.rows[i]![3]));
      expect((await bob.client.identity.getProfile()).reputation).toBe(atCeiling);
    });

    it('answers 404 recipient_not_found on to for a handle or email with no wallet here', async () => {
      for (const to of ['carol', 'carol.agents.test', 'bob.example.com', 'carol@agents.test', 'bob@example.com']) {
        await expectApiError(alice.client.wallet.send({ to, amount: '1', asset: 'usd' }), 404, 'recipient_not_found', 'to');
      }
    });

    it('refuses a send to the own wallet with 400 invalid_recipient', async () => {
      await expectApiError(alice.client.wallet.send({ to: 'alice@agents.test', amount: '1', asset: 'usd' }), 400, 'invalid_recipient', 'to');
    });
  });

  describe('fees and balance', () => {
    it.each([
      [EVM_ADDRESS, 'usdc', undefined, 'base', '0.010000', '989.990000'],
      [EVM_ADDRESS, 'usdc', 'ethereum', 'ethereum', '0.500000', '989.500000'],
      [SOLANA_ADDRESS, 'usdc', undefined, 'solana', '0.001000', '989.999000'],
    ] as const)('charges the fee in the sent asset: %s %s over %s', async (to, asset, network, expectedNetwork, fee, left) => {
      const sent = await alice.client.wallet.send({ to, amount: '10', asset, ...(network ? { network } : {}) });
      expect(sent.status).toBe('pending');
      expect(sent.fee).toEqual({ amount: fee, asset });
      expect((await alice.client.wallet.getBalance()).crypto.usdc).toBe(left);
      expect((await alice.client.wallet.getTransaction(sent.transaction_id)).network).toBe(expectedNetwork);
    });

    it.each([
      [IBAN, 'eur', '0.20', 'eur', '39.80'],
      [IBAN, 'usd', '0.20', 'usd', '89.80'],
      [ABA, 'usd', '0.25', 'usd', '89.75'],
    ] as const)('charges bank fees: %s in %s', async (to, asset, fee, field, left) => {
      const sent = await alice.client.wallet.send({ to, amount: '10', asset });
      expect(sent.fee).toEqual({ amount: fee, asset });
      expect((await balancesOf(alice.client))[field]).toBe(left);
    });

    it('rejects a send above balance plus fee with 402 insufficient_funds', async () => {
      await expectApiError(alice.client.wallet.send({ to: EVM_ADDRESS, amount: '999.990001', asset: 'usdc' }), 402, 'insufficient_funds');
      expect((await alice.client.wallet.getBalance()).crypto.usdc).toBe('1000.000000');
    });

    it('lets a send of exactly balance minus fee through, leaving zero', async () => {
      await alice.client.wallet.send({ to: EVM_ADDRESS, amount: '999.99', asset: 'usdc' });
      expect((await alice.client.wallet.getBalance()).crypto.usdc).toBe('0.000000');
      await expectApiError(alice.client.wallet.send({ to: 'bob', amount: '0.000001', asset: 'usdc' }), 402, 'insufficient_funds');
    });

    it('applies a configured fee schedule', async () => {
      const custom = await walletWorld({ wallet: { fees: { base: { usdc: '0.25' }, iban: '1.50' } } });
      const carol = await custom.agent('carol', { usdc: '10', eur: '10' });
      expect((await carol.client.wallet.send({ to: EVM_ADDRESS, amount: '1', asset: 'usdc' })).fee.amount).toBe('0.250000');
      expect((await carol.client.wallet.send({ to: IBAN, amount: '1', asset: 'eur' })).fee.amount).toBe('1.50');
    });
  });

  describe('validation', () => {
    const cases: Array<[string, Record<string, unknown>, number, string, string]> = [
      ['a missing amount', { to: 'bob', asset: 'usd' }, 400, 'invalid_request', 'amount'],
      ['a numeric amount', { to: 'bob', amount: 5, asset: 'usd' }, 400, 'invalid_request', 'amount'],
      ['an unknown asset', { to: 'bob', amount: '1', asset: 'btc' }, 400, 'invalid_request', 'asset'],
      ['an unknown network', { to: EVM_ADDRESS, amount: '1', asset: 'usdc', network: 'polygon' }, 400, 'invalid_request', 'network'],
      ['an unknown field', { to: 'bob', amount: '1', asset: 'usd', extra: 1 }, 400, 'invalid_request', 'extra'],
      ['a memo over 500 characters', { to: 'bob', amount: '1', asset: 'usd', memo: 'x'.repeat(501) }, 400, 'invalid_request', 'memo'],
      ['an exponent', { to: 'bob', amount: '1e3', asset: 'usd' }, 400, 'invalid_amount', 'amount'],
      ['a negative amount', { to: 'bob', amount: '-1', asset: 'usd' }, 400, 'invalid_amount', 'amount'],
      ['zero', { to: 'bob', amount: '0', asset: 'usd' }, 400, 'invalid_amount', 'amount'],
      ['a leading space', { to: 'bob', amount: ' 1', asset: 'usd' }, 400, 'invalid_amount', 'amount'],
      ['a trailing point', { to: 'bob', amount: '1.', asset: 'usd' }, 400, 'invalid_amount', 'amount'],
      ['a leading point', { to: 'bob', amount: '.5', asset: 'usd' }, 400, 'invalid_amount', 'amount'],
      ['three places of usd', { to: 'bob', amount: '1.001', asset: 'usd' }, 400, 'invalid_amount', 'amount'],
      ['seven places of usdc', { to: 'bob', amount: '1.0000001', asset: 'usdc' }, 400, 'invalid_amount', 'amount'],
      ['nineteen places of eth', { to: 'bob', amount: '0.0000000000000000001', asset: 'eth' }, 400, 'invalid_amount', 'amount'],
      ['a huge value', { to: 'bob', amount: '1'.repeat(31), asset: 'usd' }, 400, 'invalid_amount', 'amount'],
      ['a recipient of no form', { to: 'not a recipient', amount: '1', asset: 'usd' }, 400, 'invalid_recipient', 'to'],
      ['an empty recipient', { to: '', amount: '1', asset: 'usd' }, 400, 'invalid_recipient', 'to'],
      ['a mistyped EIP-55 address', { to: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD', amount: '1', asset: 'usdc' }, 400, 'invalid_recipient', 'to'],
      ['a 33-byte base58 string', { to: 'zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz', amount: '1', asset: 'sol' }, 400, 'invalid_recipient', 'to'],
      ['an IBAN failing mod-97', { to: 'iban:DE89370400440532013001', amount: '1', asset: 'eur' }, 400, 'invalid_recipient', 'to'],
      ['an IBAN of the wrong length', { to: 'iban:DE8937040044053201300', amount: '1', asset: 'eur' }, 400, 'invalid_recipient', 'to'],
      ['an ABA failing its checksum', { to: 'aba:021000022:123456789', amount: '1', asset: 'usd' }, 400, 'invalid_recipient', 'to'],
      ['fiat to an EVM address', { to: EVM_ADDRESS, amount: '1', asset: 'usd' }, 400, 'invalid_recipient', 'to'],
      ['sol to an EVM address', { to: EVM_ADDRESS, amount: '1', asset: 'sol' }, 400, 'invalid_recipient', 'to'],
      ['eth to a Solana address', { to: SOLANA_ADDRESS, amount: '1', asset: 'eth' }, 400, 'invalid_recipient', 'to'],
      ['crypto to a bank account', { to: IBAN, amount: '1', asset: 'usdc' }, 400, 'invalid_recipient', 'to'],
      ['eur over ABA', { to: ABA, amount: '1', asset: 'eur' }, 400, 'invalid_recipient', 'to'],
      ['a network for fiat', { to: 'bob', amount: '1', asset: 'usd', network: 'base' }, 400, 'unsupported_network', 'network'],
      ['a network for a bank send', { to: IBAN, amount: '1', asset: 'eur', network: 'ethereum' }, 400, 'unsupported_network', 'network'],
      ['eth on solana', { to: EVM_ADDRESS, amount: '1', asset: 'eth', network: 'solana' }, 400, 'unsupported_network', 'network'],
      ['sol on base', { to: SOLANA_ADDRESS, amount: '1', asset: 'sol', network: 'base' }, 400, 'unsupported_network', 'network'],
      ['an EVM address on solana', { to: EVM_ADDRESS, amount: '1', asset: 'usdc', network: 'solana' }, 400, 'unsupported_network', 'network'],
      ['a Solana address on ethereum', { to: SOLANA_ADDRESS, amount: '1', asset: 'usdc', network: 'ethereum' }, 400, 'unsupported_network', 'network'],
      ['an unknown handle', { to: 'nobody', amount: '1', asset: 'usd' }, 404, 'recipient_not_found', 'to'],
      ['more than the balance', { to: 'bob', amount: '100.01', asset: 'usd' }, 402, 'insufficient_funds', ''],
    ];

    it.each(cases)('answers %s with %i %s and leaves balances, history and events unchanged', async (_what, body, status, code, param) => {
      const balances = await balancesOf(alice.client);
      const history = await wholeHistory(alice.client);
      const events = (await world.runtime.sim.events(0, 10_000)).events.length;
      await expectApiError(alice.client.wallet.send(body as never), status, code as never, param === '' ? undefined : param);
      expect(await balancesOf(alice.client)).toEqual(balances);
      expect(await balancesOf(bob.client)).toEqual({ usd: '0.00', eur: '0.00', usdc: '0.000000', eth: '0.000000000000000000', sol: '0.000000000' });
      expect(await wholeHistory(alice.client)).toEqual(history);
      expect((await world.runtime.sim.events(0, 10_000)).events.length).toBe(events);
    });
  });

  describe('idempotency', () => {
    it('moves money once for a retried Idempotency-Key and replays the first answer', async () => {
      const first = await alice.client.wallet.send({ to: 'bob', amount: '10', asset: 'usd' }, { idempotencyKey: 'pay-bob-1' });
      const again = await alice.client.wallet.send({ to: 'bob', amount: '10', asset: 'usd' }, { idempotencyKey: 'pay-bob-1' });
      expect(again).toEqual(first);
      expect((await alice.client.wallet.getBalance()).fiat.usd).toBe('90.00');
      expect((await bob.client.wallet.getBalance()).fiat.usd).toBe('10.00');
      expect(await wholeHistory(bob.client)).toHaveLength(1);
    });

    it('refuses the key with another body (409 idempotency_conflict) and moves nothing', async () => {
      await alice.client.wallet.send({ to: 'bob', amount: '10', asset: 'usd' }, { idempotencyKey: 'k' });
      await expectApiError(alice.client.wallet.send({ to: 'bob', amount: '11', asset: 'usd' }, { idempotencyKey: 'k' }), 409, 'idempotency_conflict');
      expect((await alice.client.wallet.getBalance()).fiat.usd).toBe('90.00');
    });

    it('moves money once when the same key is sent concurrently', async () => {
      const body = { to: EVM_ADDRESS, amount: '5', asset: 'usdc' } as const;
      const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => alice.client.wallet.send(body, { idempotencyKey: 'burst' })));
      const ids = new Set(outcomes.filter((o) => o.status === 'fulfilled').map((o) => (o as PromiseFulfilledResult<{ transaction_id: string }>).value.transaction_id));
      expect(ids.size).toBe(1);
      for (const outcome of outcomes) if (outcome.status === 'rejected') expect((outcome.reason as { code: string }).code).toBe('idempotency_key_in_use');
      expect((await alice.client.wallet.getBalance()).crypto.usdc).toBe('994.990000');
    });

    it('replays a 402 as a 402 even after the balance was topped up', async () => {
      await expectApiError(alice.client.wallet.send({ to: 'bob', amount: '500', asset: 'usd' }, { idempotencyKey: 'big' }), 402, 'insufficient_funds');
      await world.sim.fundWallet({ handle: 'alice', asset: 'usd', amount: '1000' });
      await expectApiError(alice.client.wallet.send({ to: 'bob', amount: '500', asset: 'usd' }, { idempotencyKey: 'big' }), 402, 'insufficient_funds');
      expect((await bob.client.wallet.getBalance()).fiat.usd).toBe('0.00');
    });
  });
});
