import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime, type SimClient } from '../../../src/index.js';
import { expectApiError } from '../../support/transports.js';

describe('the fault language: /_sim/faults', () => {
  let runtime: Runtime;
  let sim: SimClient;

  beforeEach(async () => {
    runtime = await createRuntime({ seed: 7 });
    sim = runtime.simClient();
  });
  afterEach(() => runtime.close());

  it('creates a fault with its defaults and lists it with its hits', async () => {
    const fault = await sim.addFault({ target: 'carrier.sms', effect: 'fail', match: { to: '+15005550100' } });
    expect(fault).toEqual({
      fault_id: 'flt_1',
      target: 'carrier.sms',
      effect: 'fail',
      probability: 1,
      count: null,
      match: { to: '+15005550100' },
      delay_seconds: null,
      error_code: '30008',
      hits: 0,
      active: true,
      group: null,
      created_at: '2026-01-01T00:00:00.000Z',
    });
    const delay = await sim.addFault({ target: 'chain.submit', effect: 'delay', delay_seconds: 30, count: 2, probability: 0.5 });
    expect(delay).toMatchObject({ fault_id: 'flt_2', delay_seconds: 30, count: 2, probability: 0.5, error_code: null });
    expect((await sim.listFaults()).faults.map((listed) => listed.fault_id)).toEqual(['flt_1', 'flt_2']);
  });

  it('deletes one fault (204, then 404) and clears them all', async () => {
    const first = await sim.addFault({ target: 'mail.send', effect: 'drop' });
    await sim.addFault({ target: 'mail.send', effect: 'fail', error_code: '550' });
    await sim.addFault({ target: 'embedder.embed', effect: 'fail' });
    await sim.deleteFault(first.fault_id);
    expect((await sim.listFaults()).faults.map((fault) => fault.fault_id)).toEqual(['flt_2', 'flt_3']);
    await expectApiError(sim.deleteFault(first.fault_id), 404, 'not_found');
    await sim.clearFaults();
    expect(await sim.listFaults()).toEqual({ faults: [] });
  });

  it.each([
    [
      { target: 'chain.explode', effect: 'fail' },
      'target',
      /expected one of chain\.submit, bank\.submit, mail\.send, carrier\.sms, carrier\.call, webhook\.deliver, embedder\.embed, sandbox\.run, browser\.navigate, persistence\.write, got "chain\.explode"/,
    ],
    [{ effect: 'fail' }, 'target', /expected one of chain\.submit/],
    [{ target: 'mail.send', effect: 'explode' }, 'effect', /expected one of fail, delay, drop/],
    [{ target: 'mail.send', effect: 'fail', probability: 1.5 }, 'probability', /0 to 1/],
    [{ target: 'mail.send', effect: 'fail', probability: '0.5' }, 'probability', /got "0.5"/],
    [{ target: 'mail.send', effect: 'fail', count: 0 }, 'count', /at least 1/],
    [{ target: 'mail.send', effect: 'fail', count: 1.5 }, 'count', /integer/],
    [{ target: 'mail.send', effect: 'delay' }, 'delay_seconds', /for effect delay, got nothing/],
    [{ target: 'mail.send', effect: 'delay', delay_seconds: 0 }, 'delay_seconds', /above 0/],
    [{ target: 'mail.send', effect: 'fail', delay_seconds: 5 }, 'delay_seconds', /belongs to effect delay/],
    [{ target: 'mail.send', effect: 'drop', error_code: '451' }, 'error_code', /belongs to effect fail/],
    [{ target: 'mail.send', effect: 'fail', error_code: '250' }, 'error_code', /SMTP reply code/],
    [{ target: 'carrier.sms', effect: 'fail', error_code: '3003' }, 'error_code', /five-digit Twilio error code/],
    [{ target: 'carrier.call', effect: 'fail', error_code: 'hung-up' }, 'error_code', /"busy" or "no_answer"/],
    [{ target: 'webhook.deliver', effect: 'fail', error_code: '200' }, 'error_code', /HTTP error status/],
    [{ target: 'sandbox.run', effect: 'fail', error_code: '0' }, 'error_code', /exit code from 1 to 255/],
    [{ target: 'persistence.write', effect: 'fail', error_code: 'EIO' }, 'error_code', /takes no error_code/],
    [{ target: 'embedder.embed', effect: 'drop' }, 'effect', /embedder\.embed takes fail, delay, got "drop"/],
    [{ target: 'persistence.write', effect: 'delay', delay_seconds: 1 }, 'effect', /persistence\.write takes fail/],
    [{ target: 'mail.send', effect: 'fail', match: { to: { nested: true } } }, 'match.to', /./],
    [{ target: 'mail.send', effect: 'fail', colour: 'red' }, 'colour', /is not a parameter of this request/],
  ])('refuses %j with 400 invalid_request on %s', async (body, param, message) => {
    const error = await expectApiError(sim.addFault(body as never), 400, 'invalid_request', param);
    expect(error.message).toMatch(message);
    expect(await sim.listFaults()).toEqual({ faults: [] });
  });

  it('keeps faults and their hits in snapshots and restores', async () => {
    await sim.addFault({ target: 'bank.submit', effect: 'drop', count: 3 });
    const snapshot = await runtime.sim.snapshot();
    await sim.clearFaults();
    await runtime.sim.restore(snapshot);
    expect((await sim.listFaults()).faults).toEqual([expect.objectContaining({ fault_id: 'flt_1', target: 'bank.submit', effect: 'drop', count: 3, hits: 0 })]);
    expect((await sim.addFault({ target: 'bank.submit', effect: 'fail' })).fault_id).toBe('flt_2');
  });

  it('is part of the control plane: a live runtime without an admin token does not answer it', async () => {
    const live = await createRuntime({ mode: 'live' });
    try {
      await expectApiError(live.simClient().listFaults(), 404, 'not_found');
    } finally {
      await live.close();
    }
  });
});
