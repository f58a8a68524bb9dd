import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../../src/index.js';
import { advance, call } from './webhook-api-helpers.js';
import { startReceiver, type Receiver } from './webhook-receiver.js';
import { mayDeliver } from '../../../src/core/webhooks/webhook-payloads.js';

const EVM_ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

describe('webhook payloads of the wallet, email and memory areas', () => {
  let receiver: Receiver;
  let runtime: Runtime;
  let alice: { api_key: string; agent_id: string };

  beforeEach(async () => {
    receiver = await startReceiver();
    runtime = await createRuntime({ seed: 3 });
    alice = await runtime.createAgent({ name: 'alice', balances: { usdc: '10' } });
  });
  afterEach(async () => {
    await runtime.close();
    await receiver.close();
  });

  const subscribe = async (key: string, events: string[]) => expect((await call(runtime, 'POST', '/v1/webhooks', key, { url: receiver.url, events })).status).toBe(201);

  it('wallet.transaction.updated carries the send as GET /v1/wallet/transactions/{id} shows it after the change', async () => {
    await subscribe(alice.api_key, ['wallet.transaction.updated']);
    const sent = await call(runtime, 'POST', '/v1/wallet/send', alice.api_key, { to: EVM_ADDRESS, amount: '1', asset: 'usdc', network: 'base' });
    expect(sent.body.status).toBe('pending');
    await advance(runtime, 4);
    const [delivery] = await receiver.waitFor(1);
    const shown = await call(runtime, 'GET', `/v1/wallet/transactions/${sent.body.transaction_id}`, alice.api_key);
    expect(shown.body.status).toBe('confirmed');
    expect(delivery!.body).toMatchObject({ type: 'wallet.transaction.updated', agent_id: alice.agent_id, created_at: '2026-01-01T00:00:04.000Z', data: shown.body });
  });

  it('wallet.transaction.received goes to the recipient of a book transfer, not to the sender', async () => {
    const bob = await runtime.createAgent({ name: 'bob' });
    await subscribe(alice.api_key, ['*']);
    await subscribe(bob.api_key, ['wallet.transaction.received']);
    const sent = await call(runtime, 'POST', '/v1/wallet/send', alice.api_key, { to: 'bob', amount: '2', asset: 'usdc' });
    const [delivery] = await receiver.waitFor(1);
    const shown = await call(runtime, 'GET', `/v1/wallet/transactions/${sent.body.transaction_id}`, bob.api_key);
    expect(delivery!.body).toMatchObject({ type: 'wallet.transaction.received', agent_id: bob.agent_id, data: shown.body });
    expect(shown.body.direction).toBe('in');
  });

  it('invoice.paid carries the invoice as GET /v1/wallet/invoices/{id} shows it', async () => {
    await subscribe(alice.api_key, ['invoice.paid']);
    const invoice = await call(runtime, 'POST', '/v1/wallet/invoices', alice.api_key, { to: 'carol@example.com', amount: '3', currency: 'usd', description: 'Work' });
    await call(runtime, 'POST', `/_sim/invoices/${invoice.body.invoice_id}/pay`, null, { method: 'bank_transfer' });
    const [delivery] = await receiver.waitFor(1);
    const shown = await call(runtime, 'GET', `/v1/wallet/invoices/${invoice.body.invoice_id}`, alice.api_key);
    expect(shown.body.status).toBe('paid');
    expect(delivery!.body).toMatchObject({ type: 'invoice.paid', agent_id: alice.agent_id, data: shown.body });
  });

  it('email.received carries the full message as it was on arrival (unread)', async () => {
    const bob = await runtime.createAgent({ name: 'bob' });
    await subscribe(bob.api_key, ['email.received']);
    const sent = await call(runtime, 'POST', '/v1/email/send', alice.api_key, {
      to: ['bob@agents.test'],
      subject: 'Hello',
      text: 'Hi Bob',
      attachments: [{ filename: 'a.txt', content_type: 'text/plain', content: Buffer.from('attached').toString('base64') }],
    });
    const [delivery] = await receiver.waitFor(1);
    const opened = await call(runtime, 'GET', `/v1/email/messages/${sent.body.message_id}`, bob.api_key);
    expect(delivery!.body).toMatchObject({ type: 'email.received', agent_id: bob.agent_id });
    expect(delivery!.body.data).toEqual({ ...opened.body, read: false });
  });

  it('email.received is delivered for mail from outside the service too', async () => {
    await subscribe(alice.api_key, ['email.received']);
    const inbound = await call(runtime, 'POST', '/_sim/email/inbound', null, { to: 'alice@agents.test', from: 'x@example.com', subject: 'Out there', text: 'hello' });
    const [delivery] = await receiver.waitFor(1);
    expect(delivery!.body.data).toMatchObject({ id: inbound.body.message_id, subject: 'Out there', read: false });
  });

  it('file.indexed carries the file object as GET /v1/memory/files lists it', async () => {
    await subscribe(alice.api_key, ['file.indexed']);
    const form = new FormData();
    form.append('file', new Blob(['Webhooks deliver signed events to endpoints.'], { type: 'text/plain' }), 'notes.txt');
    const upload = await runtime.fetch(new Request('http://in-process.test/v1/memory/files', { method: 'POST', headers: { authorization: `Bearer ${alice.api_key}` }, body: form }));
    expect(upload.status).toBe(201);
    const [delivery] = await receiver.waitFor(1);
    const listed = await call(runtime, 'GET', '/v1/memory/files', alice.api_key);
    expect(delivery!.body).toMatchObject({ type: 'file.indexed', agent_id: alice.agent_id, data: listed.body.files[0] });
    expect(delivery!.body.data.indexed).toBe(true);
  });

  it('knows from the event alone that a new out, pending or agentless wallet record is never delivered, so no endpoint is read for it', () => {
    const created = (data: Record<string, unknown>, agentId: string | null = 'agt_1') => ({ type: 'wallet.transaction.created', agent_id: agentId, at: '2026-01-01T00:00:00.000Z', data });
    expect(mayDeliver(created({ direction: 'in', status: 'confirmed' }))).toBe(true);
    expect(mayDeliver(created({ direction: 'out', status: 'confirmed' }))).toBe(false);
    expect(mayDeliver(created({ direction: 'in', status: 'pending' }))).toBe(false);
    expect(mayDeliver(created({ direction: 'in', status: 'confirmed' }, null))).toBe(false);
    expect(mayDeliver({ type: 'wallet.transaction.updated', agent_id: 'agt_1', at: '2026-01-01T00:00:00.000Z', data: { status: 'confirmed' } })).toBe(true);
  });
});
