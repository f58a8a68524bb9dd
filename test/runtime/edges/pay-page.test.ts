import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RAW_TRANSPORTS, openRawWorld, type TestAgent, type World } from '../../support/transports.js';

const form = (fields: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
  redirect: 'manual',
});

describe.each(RAW_TRANSPORTS)('hosted invoice page (%s)', (kind) => {
  let world: World;
  let alice: TestAgent;

  beforeEach(async () => {
    world = await openRawWorld(kind);
    alice = await world.newAgent('alice', { display_name: 'Alice & Co' });
  });
  afterEach(() => world.close());

  const pagePath = (url: string) => new URL(url).pathname;

  it('serves payment_url as an HTML page with the amount, currency, description, due date, status and three ways to pay', async () => {
    const invoice = await alice.client.wallet.createInvoice({ to: 'carol@example.com', amount: '42.5', currency: 'eur', description: 'Design work', due_date: '2026-02-15' });
    expect(pagePath(invoice.payment_url)).toBe(`/pay/invoices/${invoice.invoice_id}`);
    if (kind === 'http') expect(invoice.payment_url.startsWith(world.baseUrl)).toBe(true);
    const response = await world.raw(pagePath(invoice.payment_url));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await response.text();
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('42.50 EUR');
    expect(html).toContain('Design work');
    expect(html).toContain('2026-02-15');
    expect(html).toContain('<dd id="status">Open</dd>');
    expect(html).toContain('Alice &amp; Co (alice.agents.test)');
    expect(html).toContain('<form method="post">');
    for (const method of ['card', 'bank_transfer', 'crypto']) expect(html).toContain(`<button type="submit" name="method" value="${method}">`);
  });

  it('pays on a form post, redirects back to the page, which then shows the paid confirmation', async () => {
    const invoice = await alice.client.wallet.createInvoice({ to: 'carol@example.com', amount: '12.34', currency: 'usd' });
    const path = pagePath(invoice.payment_url);
    const posted = await world.raw(path, form({ method: 'card' }));
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')).toBe(path);
    const html = await (await world.raw(path)).text();
    expect(html).toContain('<dd id="status">Paid</dd>');
    expect(html).toContain('id="paid-confirmation"');
    expect(html).not.toContain('<form');
    expect((await alice.client.wallet.getInvoice(invoice.invoice_id)).status).toBe('paid');
    expect((await alice.client.wallet.getBalance()).fiat.usd).toBe('12.34');
  });

  it('changes nothing when a paid invoice is paid again', async () => {
    const invoice = await alice.client.wallet.createInvoice({ to: 'bob', amount: '5', currency: 'usdc' });
    const path = pagePath(invoice.payment_url);
    await world.raw(path, form({ method: 'crypto' }));
    const paid = await alice.client.wallet.getInvoice(invoice.invoice_id);
    const events = (await world.sim.listEvents({ limit: 1000 })).events.length;
    await world.sim.advanceClock({ seconds: 60 });
    const again = await world.raw(path, form({ method: 'bank_transfer' }));
    expect(again.status).toBe(303);
    expect(await alice.client.wallet.getInvoice(invoice.invoice_id)).toEqual(paid);
    expect((await alice.client.wallet.getBalance()).crypto.usdc).toBe('5.000000');
    expect((await world.sim.listEvents({ limit: 1000 })).events.length).toBe(events);
  });

  it('escapes user text: a <script> description is shown as text, never run', async () => {
    const invoice = await alice.client.wallet.createInvoice({ to: 'bob', amount: '1', currency: 'usd', description: '<script>alert("x")</script> & "quotes" \'too\'' });
    const html = await (await world.raw(pagePath(invoice.payment_url))).text();
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &quot;quotes&quot; &#39;too&#39;');
  });

  it('answers 400 with the page and an alert for a missing or unknown method, and pays nothing', async () => {
    const invoice = await alice.client.wallet.createInvoice({ to: 'bob', amount: '1', currency: 'usd' });
    for (const fields of [{}, { method: 'cash' }]) {
      const response = await world.raw(pagePath(invoice.payment_url), form(fields));
      expect(response.status).toBe(400);
      expect(await response.text()).toContain('role="alert"');
    }
    expect((await alice.client.wallet.getInvoice(invoice.invoice_id)).status).toBe('open');
  });

  it('answers 404 with an HTML page for an unknown invoice, on GET and POST', async () => {
    for (const init of [undefined, form({ method: 'card' })]) {
      const response = await world.raw('/pay/invoices/inv_nope', init);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await response.text()).toContain('Invoice not found');
    }
  });
});
