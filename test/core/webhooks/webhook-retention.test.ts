// With an event retention, settled webhook deliveries and the bodies they sent go the way of the
// events; without one, and while a delivery still has retries to make, they stay.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../../src/index.js';
import { advance, call, deliveries, deliveriesWhen } from './webhook-api-helpers.js';
import { startReceiver, type Receiver } from './webhook-receiver.js';

describe('webhook delivery retention', () => {
  let receiver: Receiver;
  let runtime: Runtime;
  let aliceKey: string;

  async function open(eventRetention?: string): Promise<void> {
    runtime = await createRuntime({ seed: 3, ...(eventRetention ? { eventRetention } : {}) });
    aliceKey = (await runtime.createAgent({ name: 'alice' })).api_key;
    expect((await call(runtime, 'POST', '/v1/webhooks', aliceKey, { url: receiver.url })).status).toBe(201);
  }
  const fund = async () => expect((await call(runtime, 'POST', '/_sim/wallet/fund', null, { handle: 'alice', asset: 'usd', amount: '1.00' })).status).toBe(201);
  const stored = async (collection: string) => (await runtime.sim.snapshot()).store.collections[collection]?.rows.map((row) => row[0]) ?? [];
  const settled = (count: number) => deliveriesWhen(runtime, (list) => list.length === count && list.every((delivery) => delivery.status !== 'pending'));

  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await runtime?.close();
    await receiver.close();
  });

  it('removes settled deliveries first attempted before the retention, with their event bodies, as new ones are written', async () => {
    await open('1h');
    await fund();
    await fund();
    const old = await settled(2);
    expect(await stored('webhook_events')).toHaveLength(2);
    await advance(runtime, 2 * 3600);
    await fund();
    const now = await deliveriesWhen(runtime, (list) => list.length === 1 && list[0]!.status === 'delivered');
    expect(now[0]!.delivery_id).not.toBe(old[0]!.delivery_id);
    expect(await stored('webhook_events')).toEqual([now[0]!.event_id]);
  });

  it('keeps a delivery that still has retries to make, however old, and everything without a retention', async () => {
    receiver.answer = 500;
    await open('1h');
    await fund();
    await receiver.waitFor(1);
    await deliveriesWhen(runtime, (list) => list[0]?.attempts === 1 && list[0]?.last_response_status === 500);
    // Past the retention, with the retries of the first 2 hours made and failed: still pending.
    await advance(runtime, 2 * 3600);
    const pending = (await deliveries(runtime))[0]!;
    expect(pending).toMatchObject({ status: 'pending', attempts: 5 });
    await fund();
    const list = await deliveries(runtime);
    expect(list.map((delivery) => delivery.delivery_id)).toContain(pending.delivery_id);

    await runtime.close();
    receiver.answer = 200;
    await open();
    await fund();
    await settled(1);
    await advance(runtime, 30 * 86_400);
    await fund();
    await settled(2);
    expect(await stored('webhook_events')).toHaveLength(2);
  });
});
