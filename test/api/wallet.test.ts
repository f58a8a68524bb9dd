import type { OpeningBalances } from '../../src/index.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ISO_MS_Z, RAW_TRANSPORTS, TRANSPORTS_AND_POSTGRES, bearer, expectApiError, expectErrorResponse, jsonInit, openRawWorld, openWorld, type TestAgent, type World } from '../support/transports.js';

const EVM = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

/** An agent with opening balances, created through the world's control plane. */
async function funded(world: World, name: string, balances: OpeningBalances): Promise<TestAgent> {
  const created = await world.sim.createAgent({ name, balances });
  return { ...created, client: world.agent(created.api_key) };
}

describe.each(TRANSPORTS_AND_POSTGRES)('wallet (%s)', (kind) => {
  let world: World;
  let alice: TestAgent;
  let bob: TestAgent;

  beforeEach(async () => {
    world = await openWorld(kind);
    alice = await funded(world, 'alice', { usd: '100', usdc: '50', eth: '1' });
    bob = await world.newAgent('bob');
  });
  afterEach(() => world.close());

  it('GET /v1/wallet/balance shows fiat at 2 places and crypto at full precision', async () => {
    expect(await alice.client.wallet.getBalance()).toEqual({
      fiat: { usd: '100.00', eur: '0.00' },
      crypto: { usdc: '50.000000', eth: '1.000000000000000000', sol: '0.000000000' },
      updated_at: expect.stringMatching(ISO_MS_Z),
    });
  });

  it('POST /v1/wallet/send moves money by handle and both sides see the same id', async () => {
    const sent = await alice.client.wallet.send({ to: 'bob.agents.test', amount: '0.1', asset: 'eth', memo: 'thanks' });
    expect(sent).toEqual({ transaction_id: expect.stringMatching(/^txn_/), status: 'confirmed', fee: { amount: '0.000000000000000000', asset: 'eth' }, sent_at: expect.stringMatching(ISO_MS_Z) });
    expect((await bob.client.wallet.getTransaction(sent.transaction_id)).direction).toBe('in');
    expect((await bob.client.wallet.getBalance()).crypto.eth).toBe('0.100000000000000000');
  });

  it('keeps an on-chain send pending until the clock reaches its confirmation', async () => {
    const sent = await alice.client.wallet.send({ to: EVM, amount: '5', asset: 'usdc' });
    expect(sent.status).toBe('pending');
    await world.sim.advanceClock({ seconds: 3 });
    expect((await alice.client.wallet.getTransaction(sent.transaction_id)).status).toBe('pending');
    await world.sim.advanceClock({ seconds: 1 });
    expect((await alice.client.wallet.getTransaction(sent.transaction_id)).status).toBe('confirmed');
  });

  it('answers 402 insufficient_funds, 400 invalid_amount, invalid_recipient and unsupported_network with their param', async () => {
    await expectApiError(alice.client.wallet.send({ to: 'bob', amount: '100.01', asset: 'usd' }), 402, 'insufficient_funds');
    await expectApiError(alice.client.wallet.send({ to: 'bob', amount: '1.', asset: 'usd' }), 400, 'invalid_amount', 'amount');
    await expectApiError(alice.client.wallet.send({ to: 'iban:DE00', amount: '1', asset: 'usd' }), 400, 'invalid_recipient', 'to');
    await expectApiError(alice.client.wallet.send({ to: 'bob', amount: '1', asset: 'usd', network: 'base' }), 400, 'unsupported_network', 'network');
    await expectApiError(alice.client.wallet.send({ to: 'zed', amount: '1', asset: 'usd' }), 404, 'recipient_not_found', 'to');
    expect((await alice.client.wallet.getBalance()).fiat.usd).toBe('100.00');
  });

  it('GET /v1/wallet/transactions pages with cursors and filters', async () => {
    for (let i = 0; i < 3; i++) await alice.client.wallet.send({ to: 'bob', amount: '1', asset: 'usd' });
    const first = await alice.client.wallet.listTransactions({ limit: 2, asset: 'usd' });
    expect(first.transactions).toHaveLength(2);
    const second = await alice.client.wallet.listTransactions({ limit: 2, asset: 'usd', cursor: first.next_cursor! });
    expect(second.transactions.map((record) => record.direction)).toEqual(['out', 'in']);
    expect(second.next_cursor).toBeNull();
    expect((await bob.client.wallet.listTransactions({ direction: 'out' })).transactions).toEqual([]);
    await expectApiError(alice.client.wallet.listTransactions({ limit: 101 }), 400, 'invalid_request', 'limit');
  });

  it('creates, shows and pays an invoice; paying twice changes nothing', async () => {
    const invoice = await alice.client.wallet.createInvoice({ to: 'carol@example.com', amount: '20', currency: 'usd', due_date: '2026-03-01' });
    expect(invoice.payment_url).toBe(`${world.runtime.config.payUrl}/invoices/${invoice.invoice_id}`);
    const paid = await world.sim.payInvoice(invoice.invoice_id, { method: 'bank_transfer' });
    expect(paid.status).toBe('paid');
    expect(await world.sim.payInvoice(invoice.invoice_id, { method: 'card' })).toEqual(paid);
    expect(await alice.client.wallet.getInvoice(invoice.invoice_id)).toEqual(paid);
    expect((await alice.client.wallet.getBalance()).fiat.usd).toBe('120.00');
    await expectApiError(bob.client.wallet.getInvoice(invoice.invoice_id), 404, 'not_found');
  });

  it('issues cards, lists them and charges them through the control plane', async () => {
    const card = await alice.client.wallet.createCard({ limit: '10', currency: 'usd', label: 'api' });
    expect(await alice.client.wallet.listCards()).toEqual({ cards: [card], next_cursor: null });
    expect(await world.sim.chargeCard(card.card_id, { amount: '10', merchant: 'M' })).toEqual({ approved: true, transaction_id: expect.any(String) });
    expect(await world.sim.chargeCard(card.card_id, { amount: '0.01', merchant: 'M' })).toEqual({ approved: false, decline_reason: 'spending_limit' });
    expect((await alice.client.wallet.getBalance()).fiat.usd).toBe('90.00');
  });

  it('funds a wallet, injects a failure and reports the ledger through the control plane', async () => {
    await world.sim.fundWallet({ handle: 'bob', asset: 'eur', amount: '5' });
    await world.sim.addWalletFailure({ recipient: 'iban:DE89370400440532013000' });
    const sent = await bob.client.wallet.send({ to: 'iban:DE89 3704 0044 0532 0130 00', amount: '4', asset: 'eur' });
    await world.sim.advanceClock({ seconds: 86_400 });
    expect((await bob.client.wallet.getTransaction(sent.transaction_id)).status).toBe('failed');
    expect((await bob.client.wallet.getBalance()).fiat.eur).toBe('5.00');
    expect((await world.sim.walletLedger()).assets.eur).toEqual({ funded_in: '5.00', held: '5.00', fees_collected: '0.00', sent_out: '0.00' });
    await world.sim.clearWalletFailures();
  });

  it('replays a retried send with the same Idempotency-Key and moves money once', async () => {
    const first = await alice.client.wallet.send({ to: 'bob', amount: '3', asset: 'usd' }, { idempotencyKey: 'retry-1' });
    expect(await alice.client.wallet.send({ to: 'bob', amount: '3', asset: 'usd' }, { idempotencyKey: 'retry-1' })).toEqual(first);
    expect((await bob.client.wallet.getBalance()).fiat.usd).toBe('3.00');
  });
});

describe.each(RAW_TRANSPORTS)('wallet over the wire (%s)', (kind) => {
  let world: World;
  let alice: TestAgent;

  beforeEach(async () => {
    world = await openRawWorld(kind);
    alice = await funded(world, 'alice', { usd: '10' });
    await world.newAgent('bob');
  });
  afterEach(() => world.close());

  it('answers 201 to a send, invoice and card, with JSON bodies', async () => {
    for (const [path, body] of [
      ['/v1/wallet/send', { to: 'bob', amount: '1', asset: 'usd' }],
      ['/v1/wallet/invoices', { to: 'bob', amount: '1', currency: 'usd' }],
      ['/v1/wallet/cards', { limit: '1', currency: 'usd' }],
    ] as const) {
      const response = await world.raw(path, jsonInit('POST', body, bearer(alice.api_key)));
      expect(response.status, path).toBe(201);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    }
  });

  it('answers 402 in the DECISIONS.md error shape, and replays it with Idempotent-Replayed', async () => {
    const init = () => jsonInit('POST', { to: 'bob', amount: '11', asset: 'usd' }, { ...bearer(alice.api_key), 'idempotency-key': 'k402' });
    await expectErrorResponse(await world.raw('/v1/wallet/send', init()), 402, 'insufficient_funds');
    const replay = await world.raw('/v1/wallet/send', init());
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    await expectErrorResponse(replay, 402, 'insufficient_funds');
  });

  it('answers a numeric amount with 400 invalid_request on amount, and a bad decimal with invalid_amount', async () => {
    await expectErrorResponse(await world.raw('/v1/wallet/send', jsonInit('POST', { to: 'bob', amount: 1, asset: 'usd' }, bearer(alice.api_key))), 400, 'invalid_request', 'amount');
    await expectErrorResponse(await world.raw('/v1/wallet/send', jsonInit('POST', { to: 'bob', amount: '1e3', asset: 'usd' }, bearer(alice.api_key))), 400, 'invalid_amount', 'amount');
  });

  it('needs an API key for every wallet route', async () => {
    for (const path of ['/v1/wallet/balance', '/v1/wallet/transactions', '/v1/wallet/cards']) {
      await expectErrorResponse(await world.raw(path), 401, 'unauthorized');
    }
  });

  it('lists every wallet route in /openapi.json', async () => {
    const document = (await (await world.raw('/openapi.json')).json()) as { paths: Record<string, unknown> };
    for (const path of [
      '/v1/wallet/balance',
      '/v1/wallet/send',
      '/v1/wallet/transactions',
      '/v1/wallet/transactions/{transaction_id}',
      '/v1/wallet/invoices',
      '/v1/wallet/invoices/{invoice_id}',
      '/v1/wallet/cards',
      '/v1/wallet/cards/{card_id}',
      '/_sim/wallet/fund',
      '/_sim/invoices/{invoice_id}/pay',
      '/_sim/cards/{card_id}/charges',
      '/_sim/wallet/failures',
      '/_sim/wallet/ledger',
    ]) {
      expect(document.paths, path).toHaveProperty([path]);
    }
  });
});
