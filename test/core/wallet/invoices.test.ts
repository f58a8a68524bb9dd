import { beforeEach, describe, expect, it } from 'vitest';
import { expectApiError } from '../../support/transports.js';
import { walletWorld, wholeHistory, type WalletAgent, type WalletWorld } from './wallet-world.js';

describe('wallet.invoices', () => {
  let world: WalletWorld;
  let alice: WalletAgent;

  beforeEach(async () => {
    world = await walletWorld({ payUrl: 'https://pay.example.test' });
    alice = await world.agent('alice');
  });

  it('creates an open invoice with its hosted payment page on {pay_url}', async () => {
    const invoice = await alice.client.wallet.createInvoice({ to: 'carol@example.com', amount: '12.5', currency: 'usd', description: 'Consulting', due_date: '2026-02-01' });
    expect(invoice).toEqual({
      invoice_id: expect.stringMatching(/^inv_/),
      to: 'carol@example.com',
      amount: '12.50',
      currency: 'usd',
      description: 'Consulting',
      due_date: '2026-02-01',
      status: 'open',
      payment_url: `https://pay.example.test/invoices/${invoice.invoice_id}`,
      created_at: '2026-01-01T00:00:00.000Z',
      paid_at: null,
    });
    expect(await alice.client.wallet.getInvoice(invoice.invoice_id)).toEqual(invoice);
    expect((await world.runtime.sim.events(0, 100)).events.at(-1)).toMatchObject({ type: 'invoice.created', data: { invoice_id: invoice.invoice_id } });
  });

  it('pays once: paid, the creator credited with an in record, invoice.paid emitted; paying again changes nothing', async () => {
    const invoice = await alice.client.wallet.createInvoice({ to: 'bob', amount: '0.25', currency: 'usdc' });
    const reputation = (await alice.client.identity.getProfile()).reputation;
    await world.runtime.sim.advance({ seconds: 30 });
    const paid = await world.sim.payInvoice(invoice.invoice_id, { method: 'card' });
    expect(paid).toEqual({ ...invoice, status: 'paid', paid_at: '2026-01-01T00:00:30.000Z' });
    expect((await alice.client.wallet.getBalance()).crypto.usdc).toBe('0.250000');
    const [credit] = await wholeHistory(alice.client);
    expect(credit).toMatchObject({ direction: 'in', amount: '0.250000', asset: 'usdc', from: 'bob', to: 'alice.agents.test', status: 'confirmed' });
    expect((await world.runtime.sim.events(0, 100)).events.filter((event) => event.type === 'invoice.paid')).toEqual([
      expect.objectContaining({ agent_id: alice.agent_id, data: expect.objectContaining({ invoice_id: invoice.invoice_id, method: 'card', transaction_id: credit!.id }) }),
    ]);
    expect((await alice.client.identity.getProfile()).reputation).toBeGreaterThan(reputation);

    const events = (await world.runtime.sim.events(0, 1000)).events.length;
    await world.runtime.sim.advance({ seconds: 30 });
    expect(await world.sim.payInvoice(invoice.invoice_id, { method: 'crypto' })).toEqual(paid);
    expect((await alice.client.wallet.getBalance()).crypto.usdc).toBe('0.250000');
    expect((await world.runtime.sim.events(0, 1000)).events.length).toBe(events);
    expect((await world.sim.walletLedger()).assets.usdc.funded_in).toBe('0.250000');
  });

  it('keeps due_date for display only: a past due date can still be paid', async () => {
    const invoice = await alice.client.wallet.createInvoice({ to: 'bob', amount: '1', currency: 'eur', due_date: '2025-01-01' });
    await world.runtime.sim.advance({ seconds: 86_400 * 400 });
    expect((await alice.client.wallet.getInvoice(invoice.invoice_id)).status).toBe('open');
    expect((await world.sim.payInvoice(invoice.invoice_id, { method: 'bank_transfer' })).status).toBe('paid');
  });

  it.each([
    [{ to: 'bob', amount: '1', currency: 'eth' }, 'invalid_request', 'currency'],
    [{ to: 'bob', amount: '1.001', currency: 'usd' }, 'invalid_amount', 'amount'],
    [{ to: 'bob', amount: '0', currency: 'usd' }, 'invalid_amount', 'amount'],
    [{ to: 'bob', amount: '1.0000001', currency: 'usdc' }, 'invalid_amount', 'amount'],
    [{ to: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', amount: '1', currency: 'usd' }, 'invalid_recipient', 'to'],
    [{ to: 'not a payer', amount: '1', currency: 'usd' }, 'invalid_recipient', 'to'],
    [{ to: 'bob', amount: '1', currency: 'usd', due_date: '2026-02-30' }, 'invalid_request', 'due_date'],
    [{ to: 'bob', amount: '1', currency: 'usd', due_date: 'tomorrow' }, 'invalid_request', 'due_date'],
    [{ to: 'bob', amount: '1', currency: 'usd', description: 'x'.repeat(1001) }, 'invalid_request', 'description'],
  ])('refuses %o with 400 %s on %s and creates nothing', async (body, code, param) => {
    await expectApiError(alice.client.wallet.createInvoice(body as never), 400, code as never, param);
    expect((await world.runtime.sim.events(0, 100)).events.some((event) => event.type === 'invoice.created')).toBe(false);
  });

  it("hides another agent's invoice (404) and refuses paying an unknown one (404)", async () => {
    const bob = await world.agent('bob');
    const invoice = await alice.client.wallet.createInvoice({ to: 'bob', amount: '1', currency: 'usd' });
    await expectApiError(bob.client.wallet.getInvoice(invoice.invoice_id), 404, 'not_found');
    await expectApiError(world.sim.payInvoice('inv_nope', { method: 'card' }), 404, 'not_found');
    await expectApiError(world.sim.payInvoice(invoice.invoice_id, { method: 'cash' as never }), 400, 'invalid_request', 'method');
  });
});
