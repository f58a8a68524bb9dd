import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TRANSPORTS, expectApiError, openWorld, type TestAgent, type World } from '../support/transports.js';

const DOOMED = '+15005550100';
const FINE = '+14155552671';

describe.each(TRANSPORTS)('faults over the control plane (%s)', (kind) => {
  let world: World;
  let alice: TestAgent;

  beforeEach(async () => {
    world = await openWorld(kind, { seed: 3 });
    alice = await world.newAgent('alice');
  });
  afterEach(() => world.close());

  const advance = (seconds: number) => world.sim.advanceClock({ seconds });
  const smsStatus = async (id: string) => {
    const sms = await alice.client.phone.getSms(id);
    return [sms.status, sms.error_code];
  };
  const injected = async () => (await world.sim.listEvents({ limit: 1000 })).events.filter((event) => event.type === 'fault.injected');

  it('adds (201), lists with hits, deletes one (204) and clears all', async () => {
    const raw = await world.raw('/_sim/faults', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target: 'carrier.sms', effect: 'fail', match: { to: DOOMED } }),
    });
    expect(raw.status).toBe(201);
    const created = (await raw.json()) as { fault_id: string };
    expect(created).toMatchObject({ fault_id: 'flt_1', target: 'carrier.sms', effect: 'fail', error_code: '30008', hits: 0 });
    await alice.client.phone.sendSms({ to: DOOMED, body: 'hello' });
    expect((await world.sim.listFaults()).faults[0]!.hits).toBe(1);
    const second = await world.sim.addFault({ target: 'webhook.deliver', effect: 'drop' });
    const deleted = await world.raw(`/_sim/faults/${created.fault_id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect((await world.sim.listFaults()).faults.map((fault) => fault.fault_id)).toEqual([second.fault_id]);
    expect((await world.raw('/_sim/faults', { method: 'DELETE' })).status).toBe(204);
    expect(await world.sim.listFaults()).toEqual({ faults: [] });
  });

  it('names the valid targets when the target is unknown', async () => {
    const error = await expectApiError(world.sim.addFault({ target: 'sms.send', effect: 'fail' } as never), 400, 'invalid_request', 'target');
    expect(error.message).toContain('carrier.sms');
    expect(error.message).toContain('persistence.write');
  });

  it('carrier.sms fail: the SMS matching `to` ends failed with the error code; others are delivered', async () => {
    await world.sim.addFault({ target: 'carrier.sms', effect: 'fail', match: { to: DOOMED }, error_code: '30006' });
    const doomed = await alice.client.phone.sendSms({ to: DOOMED, body: 'hello' });
    const fine = await alice.client.phone.sendSms({ to: FINE, body: 'hello' });
    expect(doomed.status).toBe('queued');
    await advance(10);
    expect(await smsStatus(doomed.message_id)).toEqual(['failed', '30006']);
    expect(await smsStatus(fine.message_id)).toEqual(['delivered', null]);
    expect((await injected()).map((event) => event.data)).toEqual([
      { fault_id: 'flt_1', target: 'carrier.sms', effect: 'fail', error_code: '30006', operation: { message_id: doomed.message_id, from: alice.phone_number, to: DOOMED } },
    ]);
  });

  it('carrier.sms delay and drop: later, or sent and never delivered', async () => {
    await world.sim.addFault({ target: 'carrier.sms', effect: 'delay', delay_seconds: 100, count: 1 });
    const late = await alice.client.phone.sendSms({ to: FINE, body: 'one' });
    await advance(10);
    expect(await smsStatus(late.message_id)).toEqual(['queued', null]);
    await advance(100);
    expect(await smsStatus(late.message_id)).toEqual(['delivered', null]);
    await world.sim.addFault({ target: 'carrier.sms', effect: 'drop' });
    const lost = await alice.client.phone.sendSms({ to: FINE, body: 'two' });
    await advance(365 * 86_400);
    expect(await smsStatus(lost.message_id)).toEqual(['sent', null]);
  });

  it('carrier.call: fail ends it unanswered, delay rings later, drop rings forever', async () => {
    await world.sim.addFault({ target: 'carrier.call', effect: 'fail', error_code: 'busy', count: 1 });
    const busy = await alice.client.phone.placeCall({ to: FINE, script: 'Hello.' });
    await advance(60);
    expect(await alice.client.phone.getCall(busy.call_id)).toMatchObject({ status: 'failed', failure_reason: 'busy' });
    await world.sim.addFault({ target: 'carrier.call', effect: 'delay', delay_seconds: 30, count: 1 });
    const late = await alice.client.phone.placeCall({ to: FINE, script: 'Hello.' });
    await advance(20);
    expect((await alice.client.phone.getCall(late.call_id)).status).toBe('initiated');
    await advance(60);
    expect((await alice.client.phone.getCall(late.call_id)).status).toBe('completed');
    await world.sim.addFault({ target: 'carrier.call', effect: 'drop' });
    const ringing = await alice.client.phone.placeCall({ to: FINE, script: 'Hello.' });
    await advance(86_400);
    expect((await alice.client.phone.getCall(ringing.call_id)).status).toBe('ringing');
  });
});
