import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../../src/index.js';
import { phoneConfig } from '../../../src/core/phone/phone-config.js';

const OUTSIDE = '+14155552671';

describe('phone options', () => {
  it('set the simulated carrier delays and the speaking rate', async () => {
    const runtime = await createRuntime({ phone: { smsSentAfterSeconds: 10, smsDeliveredAfterSeconds: 20, callRingingAfterSeconds: 2, callAnsweredAfterSeconds: 3, wordsPerMinute: 60 } });
    const sim = runtime.simClient();
    const alice = runtime.agent((await sim.createAgent({ name: 'alice' })).api_key);
    const sms = await alice.phone.sendSms({ to: OUTSIDE, body: 'slow' });
    const call = await alice.phone.placeCall({ to: OUTSIDE, script: 'one two three' });
    await sim.advanceClock({ seconds: 9 });
    expect((await alice.phone.getSms(sms.message_id)).status).toBe('queued');
    await sim.advanceClock({ seconds: 1 });
    expect((await alice.phone.getSms(sms.message_id)).status).toBe('sent');
    await sim.advanceClock({ seconds: 20 });
    expect(await alice.phone.getSms(sms.message_id)).toMatchObject({ status: 'delivered', updated_at: '2026-01-01T00:00:30.000Z' });
    // Rings at 2 s, answered at 5 s, three words at 60 wpm take 3 s.
    expect(await alice.phone.getCall(call.call_id)).toMatchObject({ status: 'completed', duration_seconds: 3, ended_at: '2026-01-01T00:00:08.000Z', transcript: [{ at: '2026-01-01T00:00:05.000Z' }] });
    await runtime.close();
  });

  it('refuse negative delays and rates that are not positive integers', () => {
    expect(() => phoneConfig({ smsSentAfterSeconds: -1 })).toThrow(RangeError);
    expect(() => phoneConfig({ wordsPerMinute: 0 })).toThrow(RangeError);
    expect(() => phoneConfig({ maxRedirects: 1.5 })).toThrow(RangeError);
    expect(phoneConfig()).toMatchObject({ smsSentAfterMs: 1000, smsDeliveredAfterMs: 3000, callRingingAfterMs: 1000, callAnsweredAfterMs: 4000, wordsPerMinute: 150, maxRedirects: 10 });
  });
});
