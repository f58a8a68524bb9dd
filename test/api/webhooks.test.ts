import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ISO_MS_Z, TRANSPORTS, expectApiError, openWorld, type TestAgent, type World } from '../support/transports.js';
import { signatureIsValid, startReceiver, type Receiver } from '../core/webhooks/webhook-receiver.js';

describe.each(TRANSPORTS)('webhooks (%s)', (kind) => {
  let world: World;
  let receiver: Receiver;
  let alice: TestAgent;
  let bob: TestAgent;

  beforeEach(async () => {
    receiver = await startReceiver();
    world = await openWorld(kind);
    alice = await world.newAgent('alice');
    bob = await world.newAgent('bob');
  });
  afterEach(async () => {
    await world.close();
    await receiver.close();
  });

  /** Waits until the control plane shows a delivery matching `done` (outcomes are written when answers arrive). */
  async function deliveryWhen(done: (delivery: { status: string; attempts: number; last_response_status: number | null }) => boolean) {
    for (;;) {
      const [latest] = (await world.sim.webhookDeliveries({})).deliveries;
      if (latest && done(latest)) return latest;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  it('POST /v1/webhooks answers 201 with a whsec_ secret; GET lists without it; DELETE answers 204', async () => {
    const created = await alice.client.webhooks.create({ url: receiver.url, events: ['wallet.transaction.received'] });
    expect(created).toEqual({
      webhook_id: expect.stringMatching(/^wh_/),
      url: receiver.url,
      events: ['wallet.transaction.received'],
      secret: expect.stringMatching(/^whsec_/),
      created_at: expect.stringMatching(ISO_MS_Z),
    });
    const all = await alice.client.webhooks.create({ url: `${receiver.url}/all` });
    expect(all.events).toEqual(['*']);
    expect(await alice.client.webhooks.list()).toEqual({
      webhooks: [
        { webhook_id: all.webhook_id, url: `${receiver.url}/all`, events: ['*'], created_at: all.created_at },
        { webhook_id: created.webhook_id, url: receiver.url, events: ['wallet.transaction.received'], created_at: created.created_at },
      ],
    });
    expect(await alice.client.webhooks.delete(created.webhook_id)).toBeUndefined();
    expect((await alice.client.webhooks.list()).webhooks.map((hook) => hook.webhook_id)).toEqual([all.webhook_id]);
  });

  it('answers 400 invalid_request for an unknown event type (param events) and a non-http url (param url)', async () => {
    await expectApiError(alice.client.webhooks.create({ url: receiver.url, events: ['wallet.funded'] }), 400, 'invalid_request', 'events');
    await expectApiError(alice.client.webhooks.create({ url: 'mailto:alice@example.com' }), 400, 'invalid_request', 'url');
    expect((await alice.client.webhooks.list()).webhooks).toEqual([]);
  });

  it("answers 404 for another agent's endpoint and an unknown one", async () => {
    const created = await alice.client.webhooks.create({ url: receiver.url });
    await expectApiError(bob.client.webhooks.delete(created.webhook_id), 404, 'not_found');
    await expectApiError(alice.client.webhooks.delete('wh_unknown'), 404, 'not_found');
    expect((await bob.client.webhooks.list()).webhooks).toEqual([]);
  });

  it('delivers a signed event to the agent that owns the endpoint, and retries after the clock passes 1 min', async () => {
    const created = await alice.client.webhooks.create({ url: receiver.url });
    await bob.client.webhooks.create({ url: `${receiver.url}/bob`, events: ['invoice.paid'] });
    receiver.answer = 500;
    const funded = await world.sim.fundWallet({ handle: 'alice', asset: 'usd', amount: '4.00' });
    const [first] = await receiver.waitFor(1);
    const now = Math.floor(Date.parse((await world.sim.getClock()).now) / 1000);
    expect(first!.path).toBe('/hooks');
    expect(signatureIsValid(created.secret, first!.rawBody, first!.headers['agent-signature'] as string, now)).toBe(true);
    expect(first!.body).toMatchObject({ type: 'wallet.transaction.received', agent_id: alice.agent_id, data: await alice.client.wallet.getTransaction(funded.id) });
    await deliveryWhen((delivery) => delivery.attempts === 1 && delivery.last_response_status === 500);

    receiver.answer = 200;
    await world.sim.advanceClock({ seconds: 60 });
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.body.id).toBe(first!.body.id);
    expect(receiver.received[1]!.headers['agent-delivery-attempt']).toBe('2');
    const page = await world.sim.webhookDeliveries({ webhook_id: created.webhook_id });
    expect(page).toEqual({
      deliveries: [
        {
          delivery_id: expect.stringMatching(/^dlv_/),
          webhook_id: created.webhook_id,
          event_id: first!.body.id,
          type: 'wallet.transaction.received',
          url: receiver.url,
          attempts: 2,
          status: 'delivered',
          last_response_status: 200,
          next_attempt_at: null,
        },
      ],
      next_cursor: null,
    });
  });

  it('GET /_sim/webhooks/deliveries pages newest first and filters by status', async () => {
    await alice.client.webhooks.create({ url: receiver.url });
    for (const amount of ['1.00', '2.00', '3.00']) await world.sim.fundWallet({ handle: 'alice', asset: 'usd', amount });
    await receiver.waitFor(3);
    await deliveryWhen(() => true);
    const first = await world.sim.webhookDeliveries({ limit: 2 });
    expect(first.deliveries).toHaveLength(2);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await world.sim.webhookDeliveries({ limit: 2, cursor: first.next_cursor! });
    expect(second.deliveries).toHaveLength(1);
    expect(second.next_cursor).toBeNull();
    const ids = [...first.deliveries, ...second.deliveries].map((delivery) => delivery.event_id);
    const amounts = ids.map((id) => receiver.received.find((got) => got.body.id === id)!.body.data.amount);
    expect(amounts).toEqual(['3.00', '2.00', '1.00']);
    expect((await world.sim.webhookDeliveries({ status: 'failed' })).deliveries).toEqual([]);
    await expectApiError(world.sim.webhookDeliveries({ limit: 0 }), 400, 'invalid_request', 'limit');
    await expectApiError(world.sim.webhookDeliveries({ status: 'lost' as 'failed' }), 400, 'invalid_request', 'status');
  });
});
