/**
 * Policies beyond money (DECISIONS.md, Policies): mail domains (to, cc, bcc and replies) and a
 * daily count, phone countries and daily SMS and call counts, compute runs and the timeout
 * ceiling, the cap on memories; every refusal a 403 with its param, nothing stored or sent, one
 * `policy.violated` event, delivered to webhooks.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SimClient } from '../../src/index.js';
import { TRANSPORTS, expectApiError, openWorld, type TestAgent, type World } from '../support/transports.js';
import { startReceiver, type Receiver } from '../core/webhooks/webhook-receiver.js';

async function violations(sim: SimClient) {
  const { events } = await sim.listEvents({ after: 0, limit: 1000 });
  return events.filter((event) => event.type === 'policy.violated').map((event) => event.data);
}

describe.each(TRANSPORTS)('policies on mail, phone, compute and memory (%s)', (kind) => {
  let world: World;
  let alice: TestAgent;
  let bob: TestAgent;

  beforeEach(async () => {
    world = await openWorld(kind);
    alice = await world.newAgent('alice');
    bob = await world.newAgent('bob');
  });
  afterEach(() => world.close());

  it('refuses mail to a domain outside the list for each of to, cc and bcc, and nothing is stored or sent', async () => {
    await world.sim.setAgentPolicy('alice', { email: { recipient_domains: ['example.com', '.corp.test'] } });
    await alice.client.email.send({ to: ['ann@example.com', 'x@eu.corp.test'], subject: 'ok', text: 'hi' });
    await expectApiError(alice.client.email.send({ to: ['ann@example.com', 'eve@evil.test'], subject: 'no', text: 'hi' }), 403, 'policy_violation', 'to.1');
    await expectApiError(alice.client.email.send({ to: ['ann@example.com'], cc: ['x@corp.test'], subject: 'no', text: 'hi' }), 403, 'policy_violation', 'cc.0');
    await expectApiError(alice.client.email.send({ to: ['ann@example.com'], bcc: ['bob@agents.test'], subject: 'no', text: 'hi' }), 403, 'policy_violation', 'bcc.0');
    const sent = await alice.client.email.list({ folder: 'sent' });
    expect(sent.messages.map((message) => message.subject)).toEqual(['ok']);
    expect((await world.sim.emailOutbox()).messages).toHaveLength(1);
    expect((await bob.client.email.list({})).messages).toHaveLength(0);
    expect(await violations(world.sim)).toEqual([
      { rule: 'email.recipient_domains', route_id: 'email.send', param: 'to.1' },
      { rule: 'email.recipient_domains', route_id: 'email.send', param: 'cc.0' },
      { rule: 'email.recipient_domains', route_id: 'email.send', param: 'bcc.0' },
    ]);
  });

  it('refuses a reply to a sender outside the list', async () => {
    await world.sim.emailInbound({ to: 'alice@agents.test', from: 'stranger@elsewhere.test', subject: 'hello', text: 'hi' });
    const [message] = (await alice.client.email.list({})).messages;
    await world.sim.setAgentPolicy('alice', { email: { recipient_domains: ['example.com'] } });
    await expectApiError(alice.client.email.reply(message!.id, { text: 'hi back' }), 403, 'policy_violation', 'to.0');
    expect((await alice.client.email.list({ folder: 'sent' })).messages).toHaveLength(0);
    expect(await violations(world.sim)).toEqual([{ rule: 'email.recipient_domains', route_id: 'email.reply', param: 'to.0' }]);
  });

  it('counts messages per UTC day of service time (a send or a reply is one) and starts again at midnight', async () => {
    await world.sim.setAgentPolicy('alice', { email: { per_day: 2 } });
    const first = await alice.client.email.send({ to: ['bob@agents.test'], subject: 'one', text: '1' });
    await alice.client.email.reply(first.message_id, { text: 'two' });
    await expectApiError(alice.client.email.send({ to: ['bob@agents.test'], subject: 'three', text: '3' }), 403, 'policy_violation', 'to');
    expect((await bob.client.email.list({})).messages).toHaveLength(2);
    const { now } = await world.sim.getClock();
    await world.sim.advanceClock({ to: new Date(Date.parse(now.slice(0, 10)) + 86_400_000).toISOString() });
    await alice.client.email.send({ to: ['bob@agents.test'], subject: 'next day', text: '3' });
  });

  it('refuses SMS and calls to a country outside the list, and counts each per day', async () => {
    await world.sim.setAgentPolicy('alice', { phone: { countries: ['US'], sms_per_day: 2, calls_per_day: 1 } });
    await expectApiError(alice.client.phone.sendSms({ to: '+442071838750', body: 'hi' }), 403, 'policy_violation', 'to');
    await expectApiError(alice.client.phone.placeCall({ to: '+4930123456', script: 'hello' }), 403, 'policy_violation', 'to');
    expect((await alice.client.phone.listSms({})).messages).toHaveLength(0);
    expect((await alice.client.phone.listCalls({})).calls).toHaveLength(0);
    await alice.client.phone.sendSms({ to: '+14155550100', body: 'one' });
    await alice.client.phone.sendSms({ to: '+15005550002', body: 'two, will fail, still counts' });
    await expectApiError(alice.client.phone.sendSms({ to: '+14155550100', body: 'three' }), 403, 'policy_violation', 'to');
    await alice.client.phone.placeCall({ to: '+14155550100', script: 'hello' });
    await expectApiError(alice.client.phone.placeCall({ to: '+14155550100', script: 'again' }), 403, 'policy_violation', 'to');
    expect((await alice.client.phone.listSms({})).messages).toHaveLength(2);
    expect((await violations(world.sim)).map((data) => data.rule)).toEqual(['phone.countries', 'phone.countries', 'phone.sms_per_day', 'phone.calls_per_day']);
  });

  it('counts runs started per day and holds a lower timeout ceiling', async () => {
    await world.sim.setAgentPolicy('alice', { compute: { runs_per_day: 2, max_timeout_seconds: 10 } });
    await expectApiError(alice.client.compute.run({ runtime: 'bash', code: 'echo hi', timeout_seconds: 11 }), 403, 'policy_violation', 'timeout_seconds');
    expect((await alice.client.compute.run({ runtime: 'bash', code: 'echo hi', timeout_seconds: 10 })).stdout).toBe('hi\n');
    expect((await alice.client.compute.run({ runtime: 'bash', code: 'echo again' })).exit_code).toBe(0);
    await expectApiError(alice.client.compute.run({ runtime: 'bash', code: 'echo three' }), 403, 'policy_violation', 'code');
    const { events } = await world.sim.listEvents({ after: 0, limit: 1000 });
    expect(events.filter((event) => event.type === 'compute.run.completed')).toHaveLength(2);
  });

  it('keeps runs started together within runs_per_day: those past it when they end keep nothing', async () => {
    await world.sim.setAgentPolicy('alice', { compute: { runs_per_day: 1 } });
    const answers = await Promise.allSettled(Array.from({ length: 3 }, (_, i) => alice.client.compute.run({ runtime: 'bash', code: `echo ${i} > /out${i}.txt` })));
    expect(answers.filter((answer) => answer.status === 'fulfilled')).toHaveLength(1);
    for (const answer of answers) if (answer.status === 'rejected') await expectApiError(Promise.reject(answer.reason), 403, 'policy_violation', 'code');
    const { events } = await world.sim.listEvents({ after: 0, limit: 1000 });
    expect(events.filter((event) => event.type === 'compute.run.completed')).toHaveLength(1);
    expect((await alice.client.compute.listFs({ path: '/' })).entries.filter((entry) => entry.name.startsWith('out'))).toHaveLength(1);
  });

  it('gives a run without timeout_seconds the smaller of 30 and the ceiling', async () => {
    // A fault that strikes only runs of exactly 10 s shows the timeout the sandbox was given.
    await world.sim.addFault({ target: 'sandbox.run', effect: 'fail', error_code: '77', match: { timeout_seconds: 10 } });
    await world.sim.setAgentPolicy('alice', { compute: { max_timeout_seconds: 10 } });
    expect((await alice.client.compute.run({ runtime: 'bash', code: 'true' })).exit_code).toBe(77);
    await world.sim.setAgentPolicy('alice', { compute: { max_timeout_seconds: 60 } });
    expect((await alice.client.compute.run({ runtime: 'bash', code: 'true' })).exit_code).toBe(0);
    expect((await alice.client.compute.run({ runtime: 'bash', code: 'true', timeout_seconds: 10 })).exit_code).toBe(77);
  });

  it('caps memories stored with POST /v1/memory, file chunks aside, and a deletion makes room', async () => {
    // An indexed file's chunks are memories too, but not ones the cap counts.
    const text = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} tells of mauve pelicans auditing lighthouse number ${i}.`).join('\n\n');
    await alice.client.memory.uploadFile({ filename: 'notes.txt', data: new TextEncoder().encode(text) });
    const indexed = (await world.sim.listEvents({ after: 0, limit: 1000 })).events.find((event) => event.type === 'file.indexed');
    expect(indexed?.data.chunks).toBeGreaterThanOrEqual(2);
    await world.sim.setAgentPolicy('alice', { memory: { max_memories: 2 } });
    const first = await alice.client.memory.create({ content: 'the sky is blue' });
    await alice.client.memory.create({ content: 'grass is green' });
    await expectApiError(alice.client.memory.create({ content: 'snow is white' }), 403, 'policy_violation', 'content');
    expect((await alice.client.memory.search({ query: 'snow is white', limit: 10 })).memories.map((memory) => memory.content)).not.toContain('snow is white');
    await alice.client.memory.delete(first.memory_id);
    await alice.client.memory.create({ content: 'snow is white' });
    await world.sim.setAgentPolicy('alice', { memory: { max_memories: 0 } });
    await expectApiError(alice.client.memory.create({ content: 'anything' }), 403, 'policy_violation', 'content');
  });
});

describe('policy.violated reaches webhooks', () => {
  let world: World;
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = await startReceiver();
    world = await openWorld('in-process');
  });
  afterEach(async () => {
    await world.close();
    await receiver.close();
  });

  it('delivers {rule, route_id, param} to an endpoint that subscribed to it', async () => {
    const alice = await world.newAgent('alice', { balances: { usd: '10' } });
    await world.newAgent('bob');
    await alice.client.webhooks.create({ url: receiver.url, events: ['policy.violated'] });
    await world.sim.setAgentPolicy('alice', { wallet: { per_transaction: { usd: '1' } } });
    await expectApiError(alice.client.wallet.send({ to: 'bob', amount: '2', asset: 'usd' }), 403, 'policy_violation', 'amount');
    const [delivery] = await receiver.waitFor(1);
    expect(delivery!.body).toMatchObject({ type: 'policy.violated', agent_id: alice.agent_id, data: { rule: 'wallet.per_transaction', route_id: 'wallet.send', param: 'amount' } });
  });
});
