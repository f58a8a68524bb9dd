import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRuntime, verifyWebhook, type Runtime, type RuntimeOptions } from '../../../src/index.js';
import { advance, call, deliveries, deliveriesWhen, nowSeconds } from './webhook-api-helpers.js';
import { signatureIsValid, startReceiver, type Receiver } from './webhook-receiver.js';

const RETRY_OFFSETS = [60, 300, 1_800, 7_200, 28_800, 86_400];

describe('webhook deliveries', () => {
  let receiver: Receiver;
  let runtime: Runtime;
  let alice: { api_key: string; agent_id: string };
  let secret: string;
  let webhookId: string;

  async function open(options: RuntimeOptions = {}, events?: string[]): Promise<void> {
    runtime = await createRuntime({ seed: 7, ...options });
    alice = await runtime.createAgent({ name: 'alice' });
    const created = await call(runtime, 'POST', '/v1/webhooks', alice.api_key, { url: receiver.url, ...(events ? { events } : {}) });
    expect(created.status).toBe(201);
    secret = created.body.secret;
    webhookId = created.body.webhook_id;
  }

  const fund = (handle = 'alice', amount = '5.00') => call(runtime, 'POST', '/_sim/wallet/fund', null, { handle, asset: 'usd', amount });

  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await runtime?.close();
    await receiver.close();
  });

  it('POSTs a signed event whose data is the record as the API returns it', async () => {
    await open();
    const funded = await fund();
    const [delivery] = await receiver.waitFor(1);
    const now = await nowSeconds(runtime);
    expect(delivery!.headers['content-type']).toBe('application/json');
    expect(delivery!.headers['agent-webhook-id']).toBe(webhookId);
    expect(delivery!.headers['agent-delivery-attempt']).toBe('1');
    expect(signatureIsValid(secret, delivery!.rawBody, delivery!.headers['agent-signature'] as string, now)).toBe(true);
    expect(signatureIsValid(`${secret}x`, delivery!.rawBody, delivery!.headers['agent-signature'] as string, now)).toBe(false);
    const transaction = await call(runtime, 'GET', `/v1/wallet/transactions/${funded.body.id}`, alice.api_key);
    expect(delivery!.body).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'wallet.transaction.received',
      created_at: '2026-01-01T00:00:00.000Z',
      agent_id: alice.agent_id,
      data: transaction.body,
    });
    // The package's own verifier agrees, given the simulated clock's time.
    expect(verifyWebhook(secret, delivery!.rawBody, delivery!.headers['agent-signature'] as string, { now: now * 1000 })).toEqual(delivery!.body);
    const [recorded] = await deliveriesWhen(runtime, (list) => list[0]?.status === 'delivered');
    expect(recorded).toEqual({
      delivery_id: expect.stringMatching(/^dlv_/),
      webhook_id: webhookId,
      event_id: delivery!.body.id,
      type: 'wallet.transaction.received',
      url: receiver.url,
      attempts: 1,
      status: 'delivered',
      last_response_status: 200,
      next_attempt_at: null,
    });
  });

  it('retries at 1 min, 5 min, 30 min, 2 h, 8 h and 24 h after the first attempt with the same event, then fails', async () => {
    await open();
    receiver.answer = 500;
    await fund();
    await receiver.waitFor(1);
    await deliveriesWhen(runtime, (list) => list[0]?.last_response_status === 500);
    const first = receiver.received[0]!;
    let elapsed = 0;
    for (const [index, offset] of RETRY_OFFSETS.entries()) {
      expect((await deliveries(runtime))[0]).toMatchObject({ attempts: index + 1, status: 'pending', next_attempt_at: new Date(Date.UTC(2026, 0, 1) + offset * 1000).toISOString() });
      // One second early nothing happens; on time the retry has happened when the advance answers.
      await advance(runtime, offset - elapsed - 1);
      expect(receiver.received).toHaveLength(index + 1);
      await advance(runtime, 1);
      elapsed = offset;
      expect(receiver.received).toHaveLength(index + 2);
      const retry = receiver.received[index + 1]!;
      expect(retry.headers['agent-delivery-attempt']).toBe(String(index + 2));
      expect(retry.rawBody).toBe(first.rawBody);
      expect(signatureIsValid(secret, retry.rawBody, retry.headers['agent-signature'] as string, await nowSeconds(runtime))).toBe(true);
    }
    expect((await deliveries(runtime))[0]).toMatchObject({ attempts: 7, status: 'failed', last_response_status: 500, next_attempt_at: null });
    await advance(runtime, 10 * 86_400);
    expect(receiver.received).toHaveLength(7);
    expect((await deliveries(runtime, '?status=failed')).map((d) => d.webhook_id)).toEqual([webhookId]);
  });

  it('posts an event once when the clock passes its first retry while the first attempt is under way', async () => {
    await open();
    await fund();
    await advance(runtime, 3_600);
    await deliveriesWhen(runtime, (list) => list[0]?.status === 'delivered');
    await advance(runtime, 2 * 86_400);
    expect(receiver.received.map((delivery) => delivery.headers['agent-delivery-attempt'])).toEqual(['1']);
    expect((await deliveries(runtime))[0]).toMatchObject({ attempts: 1, status: 'delivered' });
  });

  it('stops retrying once a retry is answered 2xx', async () => {
    await open();
    receiver.answer = 503;
    await fund();
    await receiver.waitFor(1);
    receiver.answer = 204;
    await advance(runtime, 60);
    expect((await deliveries(runtime))[0]).toMatchObject({ attempts: 2, status: 'delivered', last_response_status: 204, next_attempt_at: null });
    await advance(runtime, 2 * 86_400);
    expect(receiver.received).toHaveLength(2);
  });

  it('delivers only the event types an endpoint asked for', async () => {
    await open({}, ['invoice.paid']);
    await fund();
    const invoice = await call(runtime, 'POST', '/v1/wallet/invoices', alice.api_key, { to: 'carol@example.com', amount: '3', currency: 'usd' });
    await call(runtime, 'POST', `/_sim/invoices/${invoice.body.invoice_id}/pay`, null, { method: 'card' });
    const [delivery] = await receiver.waitFor(1);
    expect(delivery!.body.type).toBe('invoice.paid');
    expect((await deliveries(runtime)).map((d) => d.type)).toEqual(['invoice.paid']);
  });

  it("keeps agents apart: an agent's endpoint gets only its own events", async () => {
    await open();
    const bob = await runtime.createAgent({ name: 'bob' });
    const other = await startReceiver();
    try {
      await call(runtime, 'POST', '/v1/webhooks', bob.api_key, { url: other.url });
      await fund('bob');
      await fund('alice', '1.00');
      const [toBob] = await other.waitFor(1);
      const [toAlice] = await receiver.waitFor(1);
      expect(toBob!.body.agent_id).toBe(bob.agent_id);
      expect(toAlice!.body.agent_id).toBe(alice.agent_id);
      expect(toAlice!.body.data.amount).toBe('1.00');
      await runtime.close();
      expect(other.received).toHaveLength(1);
      expect(receiver.received).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it('a receiver that hangs costs one timeout per attempt and never stops the clock', async () => {
    await open({ webhookOptions: { timeoutMs: 200 } });
    receiver.answer = 'hang';
    await fund();
    await receiver.waitFor(1);
    // The advance runs the retry, whose receiver never answers: it answers once the attempt timed out.
    await advance(runtime, 60);
    expect(receiver.received).toHaveLength(2);
    expect((await deliveries(runtime))[0]).toMatchObject({ attempts: 2, status: 'pending', last_response_status: null, next_attempt_at: '2026-01-01T00:05:00.000Z' });
    receiver.answer = 200;
    await advance(runtime, 240);
    expect((await deliveries(runtime))[0]).toMatchObject({ attempts: 3, status: 'delivered', last_response_status: 200 });
  });

  it('a restored snapshot taken mid-attempt continues with the pending retry', async () => {
    await open();
    receiver.answer = 'hang';
    await fund();
    await receiver.waitFor(1);
    // The first attempt is still waiting for its answer: the delivery and its retry are already stored.
    const snapshot = (await call(runtime, 'GET', '/_sim/snapshot')).body;
    await runtime.close();

    runtime = await createRuntime({ seed: 7 });
    expect((await call(runtime, 'POST', '/_sim/restore', null, snapshot)).status).toBe(204);
    expect((await deliveries(runtime))[0]).toMatchObject({ attempts: 1, status: 'pending', next_attempt_at: '2026-01-01T00:01:00.000Z' });
    receiver.answer = 200;
    await advance(runtime, 60);
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.rawBody).toBe(receiver.received[0]!.rawBody);
    expect(receiver.received[1]!.headers['agent-delivery-attempt']).toBe('2');
    expect((await deliveries(runtime))[0]).toMatchObject({ attempts: 2, status: 'delivered' });
  });

  it('ends the pending deliveries of a deleted endpoint at their next attempt', async () => {
    await open();
    receiver.answer = 500;
    await fund();
    await receiver.waitFor(1);
    expect((await call(runtime, 'DELETE', `/v1/webhooks/${webhookId}`, alice.api_key)).status).toBe(204);
    await advance(runtime, 60);
    expect(receiver.received).toHaveLength(1);
    expect((await deliveries(runtime))[0]).toMatchObject({ attempts: 1, status: 'failed', next_attempt_at: null });
  });

  it("runtime endpoints receive every agent's events, signed with their configured secret", async () => {
    const operator = await startReceiver();
    try {
      await open({ webhooks: [{ url: operator.url, secret: 'whsec_operator' }] });
      const bob = await runtime.createAgent({ name: 'bob' });
      await fund('bob', '2.00');
      await fund('alice', '3.00');
      const got = await operator.waitFor(2);
      const now = await nowSeconds(runtime);
      expect(got.map((d) => d.body.agent_id).sort()).toEqual([alice.agent_id, bob.agent_id].sort());
      for (const delivery of got) expect(signatureIsValid('whsec_operator', delivery.rawBody, delivery.headers['agent-signature'] as string, now)).toBe(true);
      expect(got[0]!.headers['agent-webhook-id']).toMatch(/^wh_rt_/);
      // Alice's own endpoint got only hers, with the same event id as the operator's copy.
      const [own] = await receiver.waitFor(1);
      expect(got.find((d) => d.body.agent_id === alice.agent_id)!.body.id).toBe(own!.body.id);
    } finally {
      await operator.close();
    }
  });
});

describe('webhook deliveries of chain deposits', () => {
  it('delivers a deposit once, as wallet.transaction.received, when it confirms (not when first seen)', async () => {
    const receiver = await startReceiver();
    const runtime = await createRuntime({ seed: 7 });
    try {
      const alice = await runtime.createAgent({ name: 'alice' });
      const created = await call(runtime, 'POST', '/v1/webhooks', alice.api_key, { url: receiver.url, events: ['wallet.transaction.received'] });
      expect(created.status).toBe(201);
      const deposit = await call(runtime, 'POST', '/_sim/chain/deposits', null, { network: 'base', asset: 'usdc', amount: '3', to: 'alice' });
      expect(deposit.status).toBe(201);
      await advance(runtime, 1);
      expect(receiver.received).toHaveLength(0);
      await advance(runtime, 3);
      const [delivery] = await receiver.waitFor(1);
      expect(delivery!.body).toMatchObject({ type: 'wallet.transaction.received', data: { status: 'confirmed', reference: deposit.body.reference, network: 'base', amount: '3.000000' } });
      await advance(runtime, 60);
      expect(receiver.received).toHaveLength(1);
    } finally {
      await runtime.close();
      await receiver.close();
    }
  });
});
