/**
 * Deliveries held against the OpenAPI document's `webhooks` section, which is generated from the
 * event catalog: one world makes every delivered type happen once, its receiver checks each POST
 * (type, headers, payload schema; see webhook-receiver.ts) and this test checks that every type of
 * the section arrived. The checker itself is shown to refuse what does not fit.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES, eventDataSchema } from '../../../src/core/events/events.schema.js';
import { createRuntime, type Runtime } from '../../../src/index.js';
import { deliveryChecker } from '../../support/openapi-recorder.js';
import { advance, call } from './webhook-api-helpers.js';
import { startReceiver, type Receiver } from './webhook-receiver.js';

const EVM_ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const OUTSIDE_NUMBER = '+14155552671';

/** The answer of a call that must succeed (any 2xx), its body shown when it does not. */
async function succeeds<T extends { status: number; body: any }>(answer: Promise<T> | T): Promise<T> {
  const done = await answer;
  expect(done.status, JSON.stringify(done.body)).toBeLessThan(300);
  return done;
}

describe('webhook deliveries and the OpenAPI webhooks section', () => {
  let receiver: Receiver;
  let runtime: Runtime;

  beforeEach(async () => {
    receiver = await startReceiver();
    runtime = await createRuntime({ seed: 5, browser: { provider: 'simulated' } });
  });
  afterEach(async () => {
    await runtime.close();
    await receiver.close();
  });

  it('names exactly the delivered types of the event catalog', async () => {
    const document = (await (await runtime.fetch(new Request('http://in-process.test/openapi.json'))).json()) as { openapi: string; webhooks: Record<string, unknown> };
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(document.webhooks)).toEqual([...WEBHOOK_EVENT_TYPES]);
    expect(WEBHOOK_EVENT_TYPES).toEqual(
      expect.arrayContaining([
        'sms.status_changed',
        'sms.received',
        'call.status_changed',
        'email.received',
        'wallet.transaction.updated',
        'wallet.transaction.received',
        'invoice.paid',
        'file.indexed',
        'browser.session.terminated',
        'policy.violated',
      ]),
    );
  });

  it('every delivered type arrives, and every delivery fits its entry', async () => {
    const alice = await runtime.createAgent({ name: 'alice', balances: { usdc: '10' } });
    const bob = await runtime.createAgent({ name: 'bob' });
    for (const agent of [alice, bob]) await succeeds(call(runtime, 'POST', '/v1/webhooks', agent.api_key, { url: receiver.url }));

    // wallet: money in (funding), a transfer that settles on the clock, an invoice paid
    await succeeds(call(runtime, 'POST', '/_sim/wallet/fund', null, { handle: 'bob', asset: 'usd', amount: '5.00' }));
    await succeeds(call(runtime, 'POST', '/v1/wallet/send', alice.api_key, { to: EVM_ADDRESS, amount: '1', asset: 'usdc', network: 'base' }));
    const invoice = await succeeds(call(runtime, 'POST', '/v1/wallet/invoices', alice.api_key, { to: 'carol@example.com', amount: '3', currency: 'usd' }));
    await succeeds(call(runtime, 'POST', `/_sim/invoices/${invoice.body.invoice_id}/pay`, null, { method: 'card' }));
    // email: between agents, and to an address the simulated relay refuses
    await succeeds(call(runtime, 'POST', '/v1/email/send', alice.api_key, { to: ['bob@agents.test'], subject: 'Hi', text: 'Hello Bob' }));
    await succeeds(call(runtime, 'POST', '/v1/email/send', alice.api_key, { to: ['ghost@bounce.invalid'], subject: 'Nope', text: 't' }));
    // memory: a document indexed
    const form = new FormData();
    form.append('file', new Blob(['Webhooks deliver signed events.'], { type: 'text/plain' }), 'notes.txt');
    const upload = await runtime.fetch(new Request('http://in-process.test/v1/memory/files', { method: 'POST', headers: { authorization: `Bearer ${alice.api_key}` }, body: form }));
    expect(upload.status).toBe(201);
    // phone: an SMS out, one in, a call
    await succeeds(call(runtime, 'POST', '/v1/phone/sms', alice.api_key, { to: OUTSIDE_NUMBER, body: 'Hello' }));
    const bobNumber = (await call(runtime, 'GET', '/v1/phone', bob.api_key)).body.phone_number as string;
    await succeeds(call(runtime, 'POST', '/_sim/phone/inbound', null, { to: bobNumber, from: OUTSIDE_NUMBER, body: 'Hi Bob' }));
    await succeeds(call(runtime, 'POST', '/v1/phone/calls', alice.api_key, { to: OUTSIDE_NUMBER, script: 'Hello there.' }));
    // browser: a session opened and closed
    const session = await succeeds(call(runtime, 'POST', '/v1/compute/browser/sessions', alice.api_key, {}));
    await succeeds(call(runtime, 'DELETE', `/v1/compute/browser/sessions/${session.body.session_id}`, alice.api_key));
    // policies: a send over bob's per-transaction limit is refused
    await succeeds(call(runtime, 'PUT', '/_sim/agents/bob/policy', null, { wallet: { per_transaction: { usd: '1.00' } } }));
    expect((await call(runtime, 'POST', '/v1/wallet/send', bob.api_key, { to: 'alice', amount: '2.00', asset: 'usd' })).status).toBe(403);
    await advance(runtime, 120);

    const arrived = () => new Set(receiver.received.map((delivery) => delivery.body.type));
    for (let tries = 0; arrived().size < WEBHOOK_EVENT_TYPES.length && tries < 400; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect([...arrived()].sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    expect(receiver.violations).toEqual([]);

    // and the log they came from: every logged event is a declared type whose data fits its schema
    const { events } = (await call(runtime, 'GET', '/_sim/events?after=0&limit=1000')).body as { events: Array<{ type: string; data: unknown }> };
    const misfits = events.flatMap((event) => {
      const schema = eventDataSchema(event.type);
      if (!schema) return [`${event.type}: not a logged type of the catalog`];
      const parsed = schema.safeParse(event.data);
      return parsed.success ? [] : [`${event.type}: ${parsed.error.message}`];
    });
    expect(misfits).toEqual([]);
    expect(new Set(events.map((event) => event.type)).size).toBeGreaterThan(15);
  });

  it('refuses a delivery whose type, headers or payload do not fit the section', () => {
    const headers = { 'agent-signature': `t=1,v1=${'a'.repeat(64)}`, 'agent-webhook-id': 'wh_1', 'agent-delivery-attempt': '1' };
    const sms = {
      message_id: 'sms_1',
      to: OUTSIDE_NUMBER,
      from: '+15005550100',
      body: 'x',
      status: 'sent',
      num_segments: 1,
      encoding: 'GSM-7',
      error_code: null,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    };
    const body = { id: 'evt_1', type: 'sms.status_changed', created_at: '2026-01-01T00:00:00.000Z', agent_id: 'agt_1', data: sms };
    expect(deliveryChecker.checkDelivery(headers, body)).toEqual([]);
    expect(deliveryChecker.checkDelivery(headers, { ...body, type: 'wallet.funded' })).toEqual([expect.stringMatching(/not in the document's webhooks section/)]);
    expect(deliveryChecker.checkDelivery(headers, { ...body, data: { ...sms, status: 'lost' } })).toEqual([expect.stringMatching(/^body: \/data\/status/)]);
    expect(deliveryChecker.checkDelivery(headers, { ...body, extra: true })).toEqual([expect.stringMatching(/^body: .*additional/)]);
    expect(deliveryChecker.checkDelivery({ ...headers, 'agent-delivery-attempt': '8' }, body)).toEqual([expect.stringMatching(/^header Agent-Delivery-Attempt/)]);
    expect(deliveryChecker.checkDelivery({ ...headers, 'agent-signature': 'v1=abc' }, body)).toEqual([expect.stringMatching(/^header Agent-Signature/)]);
  });
});
