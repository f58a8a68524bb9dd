/**
 * The runtime mounts a carrier's callback edge through the telephony port, whatever the carrier
 * is: here one written for the test (not Twilio), whose edge reports an inbound SMS and a status.
 * The simulated carrier offers none, so its runtime answers nothing under such a prefix.
 */
import { describe, expect, it } from 'vitest';
import { closeAfter } from '../support/close-after.js';
import type { CarrierEdge, Telephony, TelephonyReports } from '../../src/core/ports/telephony.js';
import { createRuntime, type Runtime } from '../../src/index.js';

const OUTSIDE = '+14155552671';

/** A carrier that takes every SMS and reports through `POST /_acme/{inbound|status}` (JSON). */
function acmeCarrier(): Telephony & { sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    planSms: async () => null,
    planCall: async () => null,
    dispatchSms: async (sms) => {
      sent.push(sms.message_id);
      return { carrier_id: `acme-${sent.length}` };
    },
    callbackEdge(reports: TelephonyReports): CarrierEdge {
      return {
        kind: 'http',
        prefix: '/_acme',
        async fetch(request) {
          const body = (await request.json()) as Record<string, string>;
          const path = new URL(request.url).pathname;
          if (path === '/_acme/inbound') await reports.inboundSms({ from: body.from!, to: body.to!, body: body.body! });
          else if (path === '/_acme/status') await reports.smsStatus(body.carrier_id!, body.status as 'delivered', null);
          else return new Response('no', { status: 404 });
          return new Response(null, { status: 204 });
        },
      };
    },
  };
}

describe("a carrier's callback edge", () => {
  const keep = closeAfter<Runtime>();

  it('is mounted from the port, for a carrier the runtime has never heard of', async () => {
    const carrier = acmeCarrier();
    const runtime = keep(await createRuntime({ providers: { telephony: carrier } }));
    const alice = await runtime.createAgent({ name: 'alice' });
    const client = runtime.agent(alice.api_key);
    const number = (await client.phone.getNumber()).phone_number;
    const post = (path: string, body: unknown) => runtime.fetch(new Request(`http://in-process.test${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));

    expect(runtime.edges().map((edge) => (edge.kind === 'listener' ? edge.name : edge.prefix))).toContain('/_acme');
    expect((await post('/_acme/inbound', { from: OUTSIDE, to: number, body: 'Hi from outside' })).status).toBe(204);
    expect((await client.phone.listMessages({})).messages.map((message) => message.body)).toEqual(['Hi from outside']);

    const sms = await client.phone.sendSms({ to: OUTSIDE, body: 'Hello' });
    expect(carrier.sent).toEqual([sms.message_id]);
    expect((await post('/_acme/status', { carrier_id: 'acme-1', status: 'delivered' })).status).toBe(204);
    expect((await client.phone.getSms(sms.message_id)).status).toBe('delivered');
  });

  it('is absent with the simulated carrier', async () => {
    const runtime = keep(await createRuntime());
    expect(runtime.edges().some((edge) => edge.kind === 'http' && edge.prefix.startsWith('/_twilio'))).toBe(false);
    expect((await runtime.fetch(new Request('http://in-process.test/_acme/inbound', { method: 'POST', body: '{}' }))).status).toBe(404);
  });
});
