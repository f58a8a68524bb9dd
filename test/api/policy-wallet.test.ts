/**
 * Policies on money (DECISIONS.md, Policies): set, shown, replaced and removed by the operator,
 * read by the agent; per-transaction and per-day limits per asset, recipients and networks; a
 * refusal is 403 policy_violation with its param, moves no money and appends one policy.violated.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SimClient } from '../../src/index.js';
import { TRANSPORTS, expectApiError, openWorld, type TestAgent, type World } from '../support/transports.js';

const EVM = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

/** The `policy.violated` events after `seq`. */
async function violations(sim: SimClient, after = 0) {
  const { events } = await sim.listEvents({ after, limit: 1000 });
  return events.filter((event) => event.type === 'policy.violated');
}

async function lastSeq(sim: SimClient): Promise<number> {
  const { events } = await sim.listEvents({ after: 0, limit: 1000 });
  return events[events.length - 1]?.seq ?? 0;
}

describe.each(TRANSPORTS)('policies on the wallet (%s)', (kind) => {
  let world: World;
  let alice: TestAgent;
  let bob: TestAgent;

  beforeEach(async () => {
    world = await openWorld(kind);
    alice = await world.newAgent('alice', { balances: { usd: '1000', usdc: '1000', eth: '1' } });
    bob = await world.newAgent('bob');
  });
  afterEach(() => world.close());

  it('is set, shown to the operator and the agent, replaced whole and removed', async () => {
    expect(await alice.client.policy.get()).toEqual({ policy: null });
    expect(await world.sim.getAgentPolicy('alice')).toEqual({ policy: null });
    const first = { wallet: { per_transaction: { usd: '100.00' }, recipients: ['bob'] }, email: { per_day: 3 } };
    expect(await world.sim.setAgentPolicy('alice', first)).toEqual({ policy: first });
    expect(await world.sim.getAgentPolicy('alice')).toEqual({ policy: first });
    expect(await alice.client.policy.get()).toEqual({ policy: first });
    const second = { phone: { countries: ['US'] } };
    await world.sim.setAgentPolicy('alice', second);
    expect(await alice.client.policy.get()).toEqual({ policy: second });
    await world.sim.removeAgentPolicy('alice');
    expect(await alice.client.policy.get()).toEqual({ policy: null });
    // By id on the admin API: the same document.
    await world.sim.adminSetAgentPolicy(alice.agent_id, first);
    expect(await world.sim.adminGetAgentPolicy(alice.agent_id)).toEqual({ policy: first });
    await world.sim.adminRemoveAgentPolicy(alice.agent_id);
    expect(await world.sim.getAgentPolicy('alice')).toEqual({ policy: null });
    await expectApiError(world.sim.getAgentPolicy('nobody'), 404, 'not_found');
    await expectApiError(world.sim.adminGetAgentPolicy('agt_missing'), 404, 'not_found');
  });

  it('refuses bad documents with the dotted param of the field and keeps the old one', async () => {
    await world.sim.setAgentPolicy('alice', { email: { per_day: 1 } });
    const bad: Array<[unknown, string]> = [
      [{ wallet: { per_day: { usd: '1.005' } } }, 'wallet.per_day.usd'],
      [{ wallet: { per_transaction: { usd: '-1' } } }, 'wallet.per_transaction.usd'],
      [{ wallet: { per_day: { doge: '1' } } }, 'wallet.per_day.doge'],
      [{ wallet: { networks: ['bitcoin'] } }, 'wallet.networks.0'],
      [{ wallet: { recipients: ['a*b'] } }, 'wallet.recipients.0'],
      [{ email: { recipient_domains: ['not a domain'] } }, 'email.recipient_domains.0'],
      [{ email: { per_day: -1 } }, 'email.per_day'],
      [{ phone: { countries: ['XX'] } }, 'phone.countries.0'],
      [{ compute: { runs_per_day: 1.5 } }, 'compute.runs_per_day'],
      [{ memory: { max_memories: '3' } }, 'memory.max_memories'],
      [{ bank: {} }, 'bank'],
    ];
    for (const [document, param] of bad) await expectApiError(world.sim.setAgentPolicy('alice', document as never), 400, 'invalid_request', param);
    expect(await alice.client.policy.get()).toEqual({ policy: { email: { per_day: 1 } } });
    // `{}` and zero limits are valid.
    await world.sim.setAgentPolicy('alice', {});
    await world.sim.setAgentPolicy('alice', { wallet: { per_day: { usd: '0' } }, email: { per_day: 0 } });
  });

  it('holds a per-transaction limit exactly: at the limit passes, above it is 403 on amount with nothing moved', async () => {
    await world.sim.setAgentPolicy('alice', { wallet: { per_transaction: { usd: '100.00' } } });
    await alice.client.wallet.send({ to: 'bob', amount: '100', asset: 'usd' });
    const seq = await lastSeq(world.sim);
    const error = await expectApiError(alice.client.wallet.send({ to: 'bob', amount: '150', asset: 'usd' }), 403, 'policy_violation', 'amount');
    expect(error.message).toBe('amount: 150.00 usd is over the per-transaction limit of 100.00 usd');
    expect((await alice.client.wallet.getBalance()).fiat.usd).toBe('900.00');
    expect((await bob.client.wallet.getBalance()).fiat.usd).toBe('100.00');
    expect((await alice.client.wallet.listTransactions({ asset: 'usd' })).transactions.filter((t) => t.direction === 'out')).toHaveLength(1);
    const logged = await violations(world.sim, seq);
    expect(logged.map((event) => ({ agent_id: event.agent_id, data: event.data }))).toEqual([{ agent_id: alice.agent_id, data: { rule: 'wallet.per_transaction', route_id: 'wallet.send', param: 'amount' } }]);
    // Other assets are not limited.
    await alice.client.wallet.send({ to: 'bob', amount: '500', asset: 'usdc' });
  });

  it('holds a per-day limit exactly, counts pending chain sends, not failed ones, and resets at 00:00 UTC of service time', async () => {
    await world.sim.setAgentPolicy('alice', { wallet: { per_day: { usd: '100.00', usdc: '10' } } });
    await alice.client.wallet.send({ to: 'bob', amount: '60', asset: 'usd' });
    await alice.client.wallet.send({ to: 'bob', amount: '40', asset: 'usd' });
    const error = await expectApiError(alice.client.wallet.send({ to: 'bob', amount: '0.01', asset: 'usd' }), 403, 'policy_violation', 'amount');
    expect(error.message).toContain('per-day limit of 100.00 usd');
    // A chain send counts while pending; a failed one gives its amount back to the day.
    await world.sim.addWalletFailure({ next: true });
    const failing = await alice.client.wallet.send({ to: EVM, amount: '6', asset: 'usdc' });
    await expectApiError(alice.client.wallet.send({ to: EVM, amount: '5', asset: 'usdc' }), 403, 'policy_violation', 'amount');
    await world.sim.advanceClock({ seconds: 10 });
    expect((await alice.client.wallet.getTransaction(failing.transaction_id)).status).toBe('failed');
    await alice.client.wallet.send({ to: EVM, amount: '10', asset: 'usdc' });
    // The next UTC day of service time starts from zero.
    const { now } = await world.sim.getClock();
    const midnight = new Date(Date.parse(now.slice(0, 10)) + 86_400_000).toISOString();
    await world.sim.advanceClock({ to: midnight });
    await alice.client.wallet.send({ to: 'bob', amount: '100', asset: 'usd' });
    expect((await alice.client.wallet.getBalance()).fiat.usd).toBe('800.00');
  });

  it('lets exactly the sends that fit through when 20 concurrent sends straddle the per-day limit', async () => {
    await world.sim.setAgentPolicy('alice', { wallet: { per_day: { usd: '100.00' } } });
    const seq = await lastSeq(world.sim);
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => alice.client.wallet.send({ to: 'bob', amount: '10', asset: 'usd' })));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(10);
    for (const result of results) if (result.status === 'rejected') expect((result.reason as { code: string }).code).toBe('policy_violation');
    expect((await alice.client.wallet.getBalance()).fiat.usd).toBe('900.00');
    expect((await bob.client.wallet.getBalance()).fiat.usd).toBe('100.00');
    expect(await violations(world.sim, seq)).toHaveLength(10);
  });

  it('allows only the recipients its patterns name: a handle in any spelling, exact addresses (EVM in any case) and prefixes', async () => {
    await world.sim.setAgentPolicy('alice', { wallet: { recipients: ['bob@agents.test', EVM.toLowerCase(), 'iban:DE*'] } });
    await alice.client.wallet.send({ to: 'bob', amount: '1', asset: 'usd' });
    await alice.client.wallet.send({ to: 'bob.agents.test', amount: '1', asset: 'usd' });
    await alice.client.wallet.send({ to: EVM, amount: '1', asset: 'usdc' });
    await alice.client.wallet.send({ to: 'iban:DE89370400440532013000', amount: '1', asset: 'usd' });
    await world.newAgent('carol');
    await expectApiError(alice.client.wallet.send({ to: 'carol', amount: '1', asset: 'usd' }), 403, 'policy_violation', 'to');
    await expectApiError(alice.client.wallet.send({ to: 'iban:GB82WEST12345698765432', amount: '1', asset: 'usd' }), 403, 'policy_violation', 'to');
    await expectApiError(alice.client.wallet.send({ to: '0x0000000000000000000000000000000000000001', amount: '1', asset: 'usdc' }), 403, 'policy_violation', 'to');
  });

  it('allows only the networks it lists, the default network included; book transfers have none', async () => {
    await world.sim.setAgentPolicy('alice', { wallet: { networks: ['ethereum'] } });
    await expectApiError(alice.client.wallet.send({ to: EVM, amount: '1', asset: 'usdc' }), 403, 'policy_violation', 'network');
    await expectApiError(alice.client.wallet.send({ to: EVM, amount: '1', asset: 'usdc', network: 'base' }), 403, 'policy_violation', 'network');
    await alice.client.wallet.send({ to: EVM, amount: '1', asset: 'usdc', network: 'ethereum' });
    await alice.client.wallet.send({ to: 'bob', amount: '1', asset: 'usdc' });
    expect((await alice.client.wallet.getBalance()).crypto.usdc).toBe('997.500000');
  });

  it('applies a change to the next request, undoes nothing, and counts what was sent before the policy was set', async () => {
    await alice.client.wallet.send({ to: 'bob', amount: '80', asset: 'usd' });
    await world.sim.setAgentPolicy('alice', { wallet: { per_day: { usd: '100' } } });
    await expectApiError(alice.client.wallet.send({ to: 'bob', amount: '30', asset: 'usd' }), 403, 'policy_violation', 'amount');
    await alice.client.wallet.send({ to: 'bob', amount: '20', asset: 'usd' });
    await world.sim.removeAgentPolicy('alice');
    await alice.client.wallet.send({ to: 'bob', amount: '30', asset: 'usd' });
    expect((await bob.client.wallet.getBalance()).fiat.usd).toBe('130.00');
  });

  it("counts the day's sends made before the policy was set as a policy would have: pending ones, not failed ones, nor yesterday's, per asset, fees apart", async () => {
    await alice.client.wallet.send({ to: 'bob', amount: '50', asset: 'usd' });
    const { now } = await world.sim.getClock();
    const midnight = new Date(Date.parse(now.slice(0, 10)) + 86_400_000).toISOString();
    await world.sim.advanceClock({ to: midnight });
    // Today: 30 usd to bob, 4 usdc on chain (confirmed), 5 usdc on chain that fails, 10 usd to a bank (its fee apart), 1 usdc still pending.
    await alice.client.wallet.send({ to: 'bob', amount: '30', asset: 'usd' });
    await alice.client.wallet.send({ to: EVM, amount: '4', asset: 'usdc' });
    await world.sim.addWalletFailure({ next: true });
    const failing = await alice.client.wallet.send({ to: EVM, amount: '5', asset: 'usdc' });
    await world.sim.advanceClock({ seconds: 10 });
    expect((await alice.client.wallet.getTransaction(failing.transaction_id)).status).toBe('failed');
    await alice.client.wallet.send({ to: 'iban:DE89370400440532013000', amount: '10', asset: 'usd' });
    await alice.client.wallet.send({ to: EVM, amount: '1', asset: 'usdc' });
    await world.sim.setAgentPolicy('alice', { wallet: { per_day: { usd: '50', usdc: '10' } } });
    // 40 usd and 5 usdc counted: 10.01 usd and 5.01 usdc more are over, 10 and 5 fit.
    await expectApiError(alice.client.wallet.send({ to: 'bob', amount: '10.01', asset: 'usd' }), 403, 'policy_violation', 'amount');
    await expectApiError(alice.client.wallet.send({ to: EVM, amount: '5.01', asset: 'usdc' }), 403, 'policy_violation', 'amount');
    await alice.client.wallet.send({ to: 'bob', amount: '10', asset: 'usd' });
    await alice.client.wallet.send({ to: EVM, amount: '5', asset: 'usdc' });
    await expectApiError(alice.client.wallet.send({ to: 'bob', amount: '0.01', asset: 'usd' }), 403, 'policy_violation', 'amount');
  });

  it('declines a card charge above the per-transaction usd limit with decline_reason "policy" and one policy.violated', async () => {
    const card = await alice.client.wallet.createCard({ limit: '500', currency: 'usd' });
    await world.sim.setAgentPolicy('alice', { wallet: { per_transaction: { usd: '100' } } });
    const seq = await lastSeq(world.sim);
    expect(await world.sim.chargeCard(card.card_id, { amount: '100.01', merchant: 'shop.example' })).toEqual({ approved: false, decline_reason: 'policy' });
    expect((await world.sim.chargeCard(card.card_id, { amount: '100', merchant: 'shop.example' })).approved).toBe(true);
    expect((await alice.client.wallet.getBalance()).fiat.usd).toBe('900.00');
    expect((await violations(world.sim, seq)).map((event) => event.data)).toEqual([{ rule: 'wallet.per_transaction', route_id: 'sim.chargeCard', param: 'amount' }]);
  });

  it('replays a refusal under the same Idempotency-Key, even after the policy is lifted', async () => {
    await world.sim.setAgentPolicy('alice', { wallet: { per_transaction: { usd: '10' } } });
    const body = { to: 'bob', amount: '50', asset: 'usd' } as const;
    await expectApiError(alice.client.wallet.send(body, { idempotencyKey: 'k1' }), 403, 'policy_violation', 'amount');
    await world.sim.removeAgentPolicy('alice');
    await expectApiError(alice.client.wallet.send(body, { idempotencyKey: 'k1' }), 403, 'policy_violation', 'amount');
    expect((await alice.client.wallet.getBalance()).fiat.usd).toBe('1000.00');
    expect(await violations(world.sim)).toHaveLength(1);
  });
});
