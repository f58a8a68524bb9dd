import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, createRuntime, sha256Hex, type Runtime } from '../../../src/index.js';
import { startTwimlServer, type TwimlServer } from '../../support/phone-twiml-server.js';

const OUTSIDE = '+14155552671';

let twiml: TwimlServer;
beforeAll(async () => {
  twiml = await startTwimlServer({ '/flow': { body: '<Response><Say>Hello from the flow</Say><Pause length="5"/><Say>Bye</Say></Response>' } });
});
afterAll(() => twiml.close());

/** A world with an SMS to another agent and a TwiML call in flight, 2 s after they started. */
async function busyWorld(seed: number): Promise<{ runtime: Runtime; alice: string; bob: string; smsId: string; callId: string }> {
  const runtime = await createRuntime({ seed });
  const sim = runtime.simClient();
  const alice = await sim.createAgent({ name: 'alice' });
  const bob = await sim.createAgent({ name: 'bob', phone_country: 'DE' });
  const client = runtime.agent(alice.api_key);
  const sms = await client.phone.sendSms({ to: bob.phone_number!, body: 'Are you there?' });
  const call = await client.phone.placeCall({ to: OUTSIDE, twiml_url: `${twiml.url}/flow` });
  await sim.advanceClock({ seconds: 2 });
  return { runtime, alice: alice.api_key, bob: bob.api_key, smsId: sms.message_id, callId: call.call_id };
}

describe('phone state across snapshots', () => {
  it('a restored world continues pending messages and calls where they were', async () => {
    const original = await busyWorld(3);
    const snapshot = await original.runtime.simClient().snapshot();
    const restored = await createRuntime({ seed: 99 });
    await restored.simClient().restore(snapshot);
    const alice = restored.agent(original.alice);
    expect((await alice.phone.getSms(original.smsId)).status).toBe('sent');
    expect((await alice.phone.getCall(original.callId)).status).toBe('ringing');
    await restored.simClient().advanceClock({ seconds: 60 });
    expect((await alice.phone.getSms(original.smsId)).status).toBe('delivered');
    expect((await restored.agent(original.bob).phone.listMessages()).messages.map((message) => message.body)).toEqual(['Are you there?']);
    const call = await alice.phone.getCall(original.callId);
    expect(call).toMatchObject({ status: 'completed', duration_seconds: 8, transcript: [{ text: 'Hello from the flow' }, { text: 'Bye' }] });
    await original.runtime.close();
    await restored.close();
  });

  it('the same seed and the same calls give the same state and event log', async () => {
    const hashes: string[] = [];
    for (let run = 0; run < 2; run++) {
      const world = await busyWorld(7);
      await world.runtime.simClient().advanceClock({ seconds: 60 });
      const snapshot = await world.runtime.simClient().snapshot();
      hashes.push(sha256Hex(canonicalJson({ ...snapshot, store: JSON.parse(JSON.stringify(snapshot.store).replaceAll(twiml.url, 'URL')) })));
      await world.runtime.close();
    }
    expect(hashes[1]).toBe(hashes[0]);
  });
});
