import { afterEach, describe, expect, it } from 'vitest';
import {
  MailTransportError,
  createRuntime,
  type Browser,
  type BrowserInstance,
  type BrowserLaunchRequest,
  type MailTransport,
  type OutboundMail,
  type Runtime,
  type RuntimeOptions,
  type SimClient,
} from '../../../src/index.js';
import type { Sandbox, SandboxRequest } from '../../../src/core/ports/sandbox.js';
import { expectApiError } from '../../support/transports.js';
import { deliveries, deliveriesWhen } from '../webhooks/webhook-api-helpers.js';
import { startReceiver, type Receiver } from '../webhooks/webhook-receiver.js';

/** Resolves once `promise` settled, without throwing; tells whether it had by the time the microtasks ran out. */
async function settledSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe('faults on the ports around the areas', () => {
  let runtime: Runtime;
  let sim: SimClient;
  let receiver: Receiver | undefined;

  async function open(options: RuntimeOptions = {}) {
    runtime = await createRuntime({ seed: 5, onInternalError: () => {}, ...options });
    sim = runtime.simClient();
    const alice = await runtime.createAgent({ name: 'alice' });
    return { ...alice, client: runtime.agent(alice.api_key) };
  }
  afterEach(async () => {
    await runtime?.close();
    await receiver?.close();
    receiver = undefined;
  });
  const injected = async () => (await runtime.sim.events(0, 1000)).events.filter((event) => event.type === 'fault.injected');
  /** Waits until `count` faults have hit (a delayed call arms its clock timer right after its hit is recorded). */
  async function hitsReach(count: number): Promise<void> {
    while ((await injected()).length < count) await new Promise((resolve) => setImmediate(resolve));
  }

  describe('mail.send', () => {
    class RecordingTransport implements MailTransport {
      readonly sent: OutboundMail[] = [];
      async send(mail: OutboundMail) {
        this.sent.push(mail);
        return { accepted: [...mail.envelope.to], rejected: [], response: '250 OK' };
      }
    }

    it('fail: the transport refuses with an SMTP reply (451 by default): the queue defers the message and says why', async () => {
      const transport = new RecordingTransport();
      const alice = await open({ providers: { mailTransport: transport } });
      await sim.addFault({ target: 'mail.send', effect: 'fail', match: { to: 'carol@example.com' } });
      const sent = await alice.client.email.send({ to: ['carol@example.com'], subject: 'hi', text: 'hello' });
      await alice.client.email.send({ to: ['dave@example.com'], subject: 'hi', text: 'hello' });
      const outbox = (await sim.emailOutbox()).messages;
      expect(outbox.map((message) => [message.recipients[0], message.status])).toEqual([
        ['carol@example.com', 'queued'],
        ['dave@example.com', 'sent'],
      ]);
      expect(outbox[0]!.recipient_states).toMatchObject([{ address: 'carol@example.com', state: 'deferred', reply_code: 451 }]);
      expect(outbox[0]!.error).toBe('451 4.3.0 temporary failure, try again later');
      expect(transport.sent.map((mail) => mail.envelope.to)).toEqual([['dave@example.com']]);
      expect((await injected())[0]!.data).toEqual({
        fault_id: 'flt_1',
        target: 'mail.send',
        effect: 'fail',
        error_code: '451',
        operation: { message_id: `<${sent.message_id}@agents.test>`, from: 'alice@agents.test', to: ['carol@example.com'] },
      });
      expect((await injected())[0]!.agent_id).toBe(alice.agent_id);
    });

    it('what the transport throws carries the reply code and whether it is permanent', async () => {
      const transport: MailTransport = {
        send: async () => {
          throw new Error('the decorated transport should not be reached');
        },
      };
      await open({ providers: { mailTransport: transport } });
      await sim.addFault({ target: 'mail.send', effect: 'fail', error_code: '550', count: 1 });
      await sim.addFault({ target: 'mail.send', effect: 'fail' });
      const errors: unknown[] = [];
      const outbound = runtime.agent((await runtime.createAgent({ name: 'bob' })).api_key);
      await outbound.email.send({ to: ['x@example.com'], subject: 'a', text: 'b' });
      await outbound.email.send({ to: ['y@example.com'], subject: 'a', text: 'b' });
      for (const message of (await sim.emailOutbox()).messages) errors.push(message.error);
      expect(errors).toEqual(['550 5.0.0 permanent failure', '451 4.3.0 temporary failure, try again later']);
      const permanent = new MailTransportError(550, '550 5.0.0 permanent failure');
      expect([permanent.replyCode, permanent.temporary, new MailTransportError(451, '451').temporary]).toEqual([550, false, true]);
    });

    it('drop: the relay accepts and the message goes nowhere; delay: the queue hands it off once the service time passed', async () => {
      const transport = new RecordingTransport();
      const alice = await open({ providers: { mailTransport: transport } });
      await sim.addFault({ target: 'mail.send', effect: 'drop', count: 1 });
      await alice.client.email.send({ to: ['carol@example.com'], subject: 'dropped', text: 'x' });
      expect((await sim.emailOutbox()).messages[0]).toMatchObject({ status: 'sent', accepted: ['carol@example.com'] });
      expect(transport.sent).toEqual([]);
      await sim.addFault({ target: 'mail.send', effect: 'delay', delay_seconds: 30, count: 1 });
      await alice.client.email.send({ to: ['carol@example.com'], subject: 'late', text: 'x' });
      expect((await sim.emailOutbox()).messages[1]).toMatchObject({ status: 'queued', next_attempt_at: '2026-01-01T00:00:30.000Z' });
      await sim.advanceClock({ seconds: 29 });
      expect(transport.sent).toEqual([]);
      await sim.advanceClock({ seconds: 1 });
      expect(transport.sent.map((mail) => mail.subject)).toEqual(['late']);
      expect((await sim.emailOutbox()).messages[1]).toMatchObject({ status: 'sent', attempts: 2 });
    });
  });

  describe('embedder.embed', () => {
    it('fail: the memory call answers 500 and stores nothing; delay: it answers once service time passed', async () => {
      const alice = await open();
      await sim.addFault({ target: 'embedder.embed', effect: 'fail', count: 1 });
      await expectApiError(alice.client.memory.create({ content: 'the sky is blue' }), 500, 'internal_error');
      expect((await alice.client.memory.search({ query: 'sky' })).memories).toEqual([]);
      expect((await injected())[0]!.data).toMatchObject({ target: 'embedder.embed', operation: { texts: 1, route: 'memory.create' } });
      await sim.addFault({ target: 'embedder.embed', effect: 'delay', delay_seconds: 5, count: 1 });
      const creating = alice.client.memory.create({ content: 'the sky is blue' });
      await hitsReach(2);
      expect(await settledSoon(creating)).toBe(false);
      await sim.advanceClock({ seconds: 5 });
      expect((await creating).memory_id).toMatch(/^mem_/);
      expect((await alice.client.memory.search({ query: 'sky' })).memories).toHaveLength(1);
    });
    it('a fault hit recorded during a request is not the write persistence.write fails: the memory write is', async () => {
      const alice = await open();
      await sim.addFault({ target: 'embedder.embed', effect: 'delay', delay_seconds: 1, count: 1 });
      await sim.addFault({ target: 'persistence.write', effect: 'fail', match: { route: 'memory.create' } });
      const creating = alice.client.memory.create({ content: 'the sky is blue' });
      await hitsReach(1);
      expect(await settledSoon(creating)).toBe(false);
      await sim.advanceClock({ seconds: 1 });
      await expectApiError(creating, 500, 'internal_error');
      expect((await sim.listFaults()).faults.map((fault) => [fault.target, fault.hits])).toEqual([
        ['embedder.embed', 1],
        ['persistence.write', 1],
      ]);
      expect((await alice.client.memory.search({ query: 'sky' })).memories).toEqual([]);
    });
  });

  describe('sandbox.run', () => {
    const runs: SandboxRequest[] = [];
    const sandbox: Sandbox = {
      kind: 'fake',
      run: async (request) => {
        runs.push(request);
        return { stdout: 'ran\n', stderr: '', exitCode: 0, durationMs: 7, changes: { removed: [], directories: [], files: [] } };
      },
      close: async () => {},
    };

    it('fail: the run dies with exit 137 (or the fault code) and keeps nothing', async () => {
      runs.length = 0;
      const alice = await open({ providers: { sandbox } });
      await sim.addFault({ target: 'sandbox.run', effect: 'fail', count: 1 });
      await sim.addFault({ target: 'sandbox.run', effect: 'fail', error_code: '139', match: { runtime: 'bash' } });
      expect(await alice.client.compute.run({ runtime: 'python', code: 'print(1)' })).toMatchObject({ exit_code: 137, stdout: '' });
      expect(await alice.client.compute.run({ runtime: 'bash', code: 'echo 1' })).toMatchObject({ exit_code: 139 });
      expect(await alice.client.compute.run({ runtime: 'python', code: 'print(1)' })).toMatchObject({ exit_code: 0, stdout: 'ran\n' });
      expect(runs).toHaveLength(1);
    });

    it('drop: the run ends by its timeout (exit 124) once that much service time passed; delay: later and longer', async () => {
      runs.length = 0;
      const alice = await open({ providers: { sandbox } });
      await sim.addFault({ target: 'sandbox.run', effect: 'drop', count: 1 });
      const dropped = alice.client.compute.run({ runtime: 'python', code: 'print(1)', timeout_seconds: 10 });
      await hitsReach(1);
      expect(await settledSoon(dropped)).toBe(false);
      await sim.advanceClock({ seconds: 10 });
      expect(await dropped).toMatchObject({ exit_code: 124, duration_ms: 10_000 });
      await sim.addFault({ target: 'sandbox.run', effect: 'delay', delay_seconds: 3 });
      const delayed = alice.client.compute.run({ runtime: 'python', code: 'print(1)' });
      await hitsReach(2);
      expect(await settledSoon(delayed)).toBe(false);
      await sim.advanceClock({ seconds: 3 });
      expect(await delayed).toMatchObject({ exit_code: 0, duration_ms: 3_007 });
      expect(runs).toHaveLength(1);
    });
  });

  describe('browser.navigate', () => {
    const launched: BrowserLaunchRequest[] = [];
    const browser: Browser = {
      kind: 'simulated',
      launch: async (request) => {
        launched.push(request);
        const instance: BrowserInstance = {
          attach: () => {},
          screenshot: async () => ({ png: new Uint8Array(), width: 1, height: 1 }),
          close: async () => {},
          onExit: () => {},
        };
        return instance;
      },
    };

    it('fail: the first navigation fails and no session is created; delay: it opens after service time; no url, no navigation', async () => {
      launched.length = 0;
      const alice = await open({ providers: { browser } });
      await sim.addFault({ target: 'browser.navigate', effect: 'fail', match: { url: 'https://down.example/' } });
      await expectApiError(alice.client.browser.createSession({ url: 'https://down.example/' }), 500, 'internal_error');
      expect((await alice.client.browser.listSessions()).sessions).toEqual([]);
      expect(launched).toEqual([]);
      await sim.addFault({ target: 'browser.navigate', effect: 'delay', delay_seconds: 2 });
      const blank = await alice.client.browser.createSession({});
      expect(blank.status).toBe('open');
      const opening = alice.client.browser.createSession({ url: 'https://up.example/' });
      await hitsReach(2);
      expect(await settledSoon(opening)).toBe(false);
      await sim.advanceClock({ seconds: 2 });
      expect((await opening).url).toBe('https://up.example/');
      expect(launched.map((request) => request.url)).toEqual([null, 'https://up.example/']);
    });
  });

  describe('webhook.deliver', () => {
    async function withEndpoint() {
      receiver = await startReceiver();
      const alice = await open();
      await alice.client.webhooks.create({ url: receiver.url });
      return alice;
    }

    it('fail: the receiver answers 500 (or the fault status) and the delivery is retried', async () => {
      await withEndpoint();
      await sim.addFault({ target: 'webhook.deliver', effect: 'fail', error_code: '503', count: 1 });
      await sim.fundWallet({ handle: 'alice', asset: 'usd', amount: '5' });
      const [first] = await deliveriesWhen(runtime, (list) => list[0]?.last_response_status === 503);
      expect(first).toMatchObject({ status: 'pending', attempts: 1 });
      expect(receiver!.received).toEqual([]);
      await sim.advanceClock({ seconds: 60 });
      const [retried] = await deliveriesWhen(runtime, (list) => list[0]?.status === 'delivered');
      expect(retried).toMatchObject({ attempts: 2, last_response_status: 200 });
      expect(receiver!.received).toHaveLength(1);
    });

    it('drop: no answer ever comes, as with a receiver that hangs; a short delay still delivers', async () => {
      await withEndpoint();
      await sim.addFault({ target: 'webhook.deliver', effect: 'drop', count: 1 });
      await sim.addFault({ target: 'webhook.deliver', effect: 'delay', delay_seconds: 1 });
      await sim.fundWallet({ handle: 'alice', asset: 'usd', amount: '5' });
      await deliveriesWhen(runtime, (list) => list.length === 1);
      await hitsReach(1);
      await sim.advanceClock({ seconds: 60 });
      const [delivered] = await deliveriesWhen(runtime, (list) => list[0]?.status === 'delivered');
      expect(delivered).toMatchObject({ attempts: 2 });
      expect((await injected()).map((event) => event.data.effect)).toEqual(['drop', 'delay']);
      expect((await deliveries(runtime))[0]!.last_response_status).toBe(200);
    });
  });
});
