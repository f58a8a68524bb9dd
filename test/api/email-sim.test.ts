import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson, createRuntime, sha256Hex } from '../../src/index.js';
import { TRANSPORTS, expectApiError, expectErrorResponse, jsonInit, openWorld, type TestAgent, type World } from '../support/transports.js';

const b64 = (data: string | Uint8Array) => Buffer.from(data).toString('base64');

/** A multipart message with a unicode subject, text, html and one attachment. */
const RAW = [
  'From: "Zoë Outside" <zoe@example.com>',
  'To: bob@agents.test, someone@example.org',
  'Cc: carol@agents.test',
  'Subject: =?UTF-8?B?' + b64('Grüße aus Köln ☕') + '?=',
  'Message-ID: <outside-1@example.com>',
  'Date: Wed, 31 Dec 2025 23:59:00 +0000',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary="b1"',
  '',
  '--b1',
  'Content-Type: multipart/alternative; boundary="b2"',
  '',
  '--b2',
  'Content-Type: text/plain; charset=utf-8',
  'Content-Transfer-Encoding: quoted-printable',
  '',
  'Hall=C3=B6 Bob',
  '--b2',
  'Content-Type: text/html; charset=utf-8',
  '',
  '<p>Hallö Bob</p>',
  '--b2--',
  '--b1',
  'Content-Type: application/pdf; name="plan.pdf"',
  'Content-Disposition: attachment; filename="plan.pdf"',
  'Content-Transfer-Encoding: base64',
  '',
  b64('%PDF-1.4 fake'),
  '--b1--',
  '',
].join('\r\n');

describe.each(TRANSPORTS)('email control plane (%s)', (kind) => {
  let world: World;
  let bob: TestAgent;
  let carol: TestAgent;

  beforeEach(async () => {
    world = await openWorld(kind);
    bob = await world.newAgent('bob');
    carol = await world.newAgent('carol');
  });
  afterEach(() => world.close());

  describe('POST /_sim/email/inbound (fields)', () => {
    it("answers 201 {message_id, thread_id} and delivers into the recipient's inbox with email.received", async () => {
      const response = await world.raw('/_sim/email/inbound', jsonInit('POST', { to: 'bob@agents.test', from: 'zoe@example.com', subject: 'Hello', text: 'From outside' }));
      expect(response.status).toBe(201);
      const accepted = (await response.json()) as { message_id: string; thread_id: string };
      expect(Object.keys(accepted).sort()).toEqual(['message_id', 'thread_id']);
      const message = await bob.client.email.get(accepted.message_id);
      expect(message).toMatchObject({ thread_id: accepted.thread_id, from: 'zoe@example.com', to: ['bob@agents.test'], subject: 'Hello', text: 'From outside', html: null, folder: 'inbox' });
      expect(message.headers).toMatchObject({ From: 'zoe@example.com', To: 'bob@agents.test', Subject: 'Hello', 'Message-ID': `<${accepted.message_id}@agents.test>` });
      const received = (await world.sim.listEvents({ after: 0, limit: 1000 })).events.filter((event) => event.type === 'email.received');
      expect(received).toEqual([expect.objectContaining({ agent_id: bob.agent_id, data: expect.objectContaining({ message_id: accepted.message_id, from: 'zoe@example.com' }) })]);
    });

    it('keeps attachments, delivers to every agent among to and cc, and ignores outside header addresses', async () => {
      const accepted = await world.sim.emailInbound({
        to: ['bob@agents.test', 'friend@example.org'],
        cc: ['carol@agents.test'],
        from: 'zoe@example.com',
        subject: 'Invoice',
        html: '<p>attached</p>',
        attachments: [{ filename: 'inv.pdf', content: b64('%PDF'), content_type: 'application/pdf' }],
      });
      for (const agent of [bob, carol]) {
        const message = await agent.client.email.get(accepted.message_id);
        expect(message.cc).toEqual(['carol@agents.test']);
        const [attachment] = message.attachments;
        expect(attachment).toMatchObject({ filename: 'inv.pdf', content_type: 'application/pdf', size: 4 });
        expect(Buffer.from((await agent.client.email.downloadAttachment(attachment!.attachment_id)).bytes).toString()).toBe('%PDF');
      }
    });

    it("joins the thread of the agent's message it answers (In-Reply-To), and a reply goes back outside", async () => {
      const alice = await world.newAgent('alice');
      const sent = await alice.client.email.send({ to: ['zoe@example.com'], subject: 'Offer', text: 'Interested?' });
      const answer = await world.sim.emailInbound({
        to: 'alice@agents.test',
        from: 'zoe@example.com',
        subject: 'Re: Offer',
        text: 'Yes',
        headers: { 'In-Reply-To': `<${sent.message_id}@agents.test>`, 'X-Mailer': 'test' },
      });
      expect(answer.thread_id).toBe(sent.thread_id);
      const reply = await alice.client.email.reply(answer.message_id, { text: 'Great' });
      expect(reply.thread_id).toBe(sent.thread_id);
      const outbox = (await world.sim.emailOutbox()).messages;
      expect(outbox.map((message) => [message.message_id, message.recipients, message.subject])).toEqual([
        [sent.message_id, ['zoe@example.com'], 'Offer'],
        [reply.message_id, ['zoe@example.com'], 'Re: Offer'],
      ]);
      expect(outbox[1]!.headers['In-Reply-To']).toBe(`<${answer.message_id}@agents.test>`);
    });

    it.each<[string, Record<string, unknown>, number, string, string]>([
      ['an unknown agent address', { to: 'nobody@agents.test', from: 'z@example.com', subject: 's', text: 't' }, 404, 'recipient_not_found', 'to'],
      ['an unknown second agent address', { to: ['bob@agents.test', 'nobody@agents.test'], from: 'z@example.com', subject: 's', text: 't' }, 404, 'recipient_not_found', 'to.1'],
      ['no agent at all', { to: ['x@example.org'], from: 'z@example.com', subject: 's', text: 't' }, 404, 'recipient_not_found', 'to.0'],
      ['no from', { to: 'bob@agents.test', subject: 's', text: 't' }, 400, 'invalid_request', 'from'],
      ['no to', { from: 'z@example.com', subject: 's', text: 't' }, 400, 'invalid_request', 'to'],
      ['no subject', { to: 'bob@agents.test', from: 'z@example.com', text: 't' }, 400, 'invalid_request', 'subject'],
      ['an invalid from', { to: 'bob@agents.test', from: 'zoe', subject: 's', text: 't' }, 400, 'invalid_request', 'from'],
      ['raw together with fields', { raw: RAW, from: 'z@example.com' }, 400, 'invalid_request', 'from'],
      ['a header with a line break', { to: 'bob@agents.test', from: 'z@example.com', subject: 's', headers: { 'X-A': 'a\r\nBcc: x' } }, 400, 'invalid_request', 'headers.X-A'],
    ])('refuses %s', async (_what, body, status, code, param) => {
      await expectErrorResponse(await world.raw('/_sim/email/inbound', jsonInit('POST', body)), status, code as 'invalid_request', param);
      expect((await bob.client.email.list()).messages).toEqual([]);
    });
  });

  describe('POST /_sim/email/inbound (raw)', () => {
    it('parses a multipart message: unicode subject, text, html, attachment, and delivers to the agents of To and Cc', async () => {
      const accepted = await world.sim.emailInbound({ raw: RAW });
      const message = await bob.client.email.get(accepted.message_id);
      expect(message).toMatchObject({
        from: 'zoe@example.com',
        to: ['bob@agents.test', 'someone@example.org'],
        cc: ['carol@agents.test'],
        subject: 'Grüße aus Köln ☕',
        text: 'Hallö Bob',
        html: '<p>Hallö Bob</p>',
      });
      expect(message.headers).toMatchObject({ 'Message-ID': '<outside-1@example.com>', Subject: 'Grüße aus Köln ☕', From: '"Zoë Outside" <zoe@example.com>' });
      const [attachment] = message.attachments;
      expect(attachment).toMatchObject({ filename: 'plan.pdf', content_type: 'application/pdf' });
      expect(Buffer.from((await bob.client.email.downloadAttachment(attachment!.attachment_id)).bytes).toString()).toBe('%PDF-1.4 fake');
      expect((await carol.client.email.list()).messages.map((listed) => listed.id)).toEqual([accepted.message_id]);
    });

    it('delivers to the envelope in to instead of the header recipients, and keeps Bcc out of the headers', async () => {
      const raw = 'From: z@example.com\r\nTo: list@example.org\r\nBcc: carol@agents.test\r\nSubject: env\r\n\r\nbody\r\n';
      const accepted = await world.sim.emailInbound({ raw, to: ['bob@agents.test'] });
      const message = await bob.client.email.get(accepted.message_id);
      expect(message.to).toEqual(['list@example.org']);
      expect(JSON.stringify(message)).not.toContain('carol@agents.test');
      expect((await carol.client.email.list()).messages).toEqual([]);
      // Without an envelope, a Bcc header's agents receive it, and still see no Bcc header.
      const viaHeaders = await world.sim.emailInbound({ raw });
      expect(JSON.stringify(await carol.client.email.get(viaHeaders.message_id))).not.toContain('carol@agents.test');
    });

    it('joins a known thread through References and synthesises a Message-ID when there is none', async () => {
      const first = await world.sim.emailInbound({ raw: RAW });
      const followUp = await world.sim.emailInbound({ raw: 'From: z@example.com\r\nTo: bob@agents.test\r\nSubject: more\r\nReferences: <unknown@x> <outside-1@example.com>\r\n\r\nmore\r\n' });
      expect(followUp.thread_id).toBe(first.thread_id);
      expect((await bob.client.email.get(followUp.message_id)).headers['Message-ID']).toBe(`<${followUp.message_id}@agents.test>`);
      expect((await bob.client.email.list({ thread_id: first.thread_id })).messages).toHaveLength(2);
    });

    it('refuses an envelope recipient without a mailbox with 404 recipient_not_found', async () => {
      await expectApiError(world.sim.emailInbound({ raw: RAW, to: ['bob@agents.test', 'x@example.org'] }), 404, 'recipient_not_found', 'to.1');
    });
  });

  describe('GET /_sim/email/outbox', () => {
    it('keeps mail for outside addresses, oldest first, with its status; agents-only mail never appears', async () => {
      const alice = await world.newAgent('alice');
      expect(await world.sim.emailOutbox()).toEqual({ messages: [] });
      await alice.client.email.send({ to: ['bob@agents.test'], subject: 'internal', text: 't' });
      const out = await alice.client.email.send({
        to: ['x@example.com', 'bob@agents.test'],
        cc: ['y@example.com'],
        subject: 'external',
        text: 't',
        attachments: [{ filename: 'a.txt', content: b64('abc'), content_type: 'text/plain' }],
      });
      const { messages } = await world.sim.emailOutbox();
      expect(messages).toHaveLength(1);
      expect(messages[0]).toMatchObject({
        message_id: out.message_id,
        thread_id: out.thread_id,
        from: 'alice@agents.test',
        to: ['x@example.com', 'bob@agents.test'],
        cc: ['y@example.com'],
        recipients: ['x@example.com', 'y@example.com'],
        subject: 'external',
        status: 'sent',
        accepted: ['x@example.com', 'y@example.com'],
        rejected: [],
        error: null,
      });
      expect(messages[0]!.attachments[0]).toMatchObject({ filename: 'a.txt', size: 3 });
      const types = (await world.sim.listEvents({ after: 0, limit: 1000 })).events.map((event) => event.type);
      expect(types.filter((type) => type === 'email.outbound')).toHaveLength(1);
    });

    it('records a refused recipient as failed with email.delivery_failed; the sent copy stays', async () => {
      const alice = await world.newAgent('alice');
      const sent = await alice.client.email.send({ to: ['ghost@bounce.invalid'], subject: 'nope', text: 't' });
      const [record] = (await world.sim.emailOutbox()).messages;
      expect(record).toMatchObject({ status: 'failed', accepted: [], rejected: ['ghost@bounce.invalid'] });
      expect(record!.error).toMatch(/550/);
      const failed = (await world.sim.listEvents({ after: 0, limit: 1000 })).events.filter((event) => event.type === 'email.delivery_failed');
      expect(failed).toEqual([expect.objectContaining({ agent_id: alice.agent_id, data: expect.objectContaining({ message_id: sent.message_id, recipients: ['ghost@bounce.invalid'] }) })]);
      expect((await alice.client.email.get(sent.message_id)).folder).toBe('sent');
    });

    it('answers 401 on the control plane with an admin token configured and none given', async () => {
      const guarded = await openWorld(kind, { adminToken: 'secret-token' });
      try {
        await expectErrorResponse(await guarded.raw('/_sim/email/outbox'), 401, 'unauthorized');
        await expectErrorResponse(await guarded.raw('/_sim/email/inbound', jsonInit('POST', { raw: RAW })), 401, 'unauthorized');
        expect(await guarded.sim.emailOutbox()).toEqual({ messages: [] });
      } finally {
        await guarded.close();
      }
    });
  });
});

describe('email determinism and snapshots', () => {
  async function scenario(seed: number) {
    const runtime = await createRuntime({ seed });
    const alice = runtime.agent((await runtime.createAgent({ name: 'alice' })).api_key);
    const bob = runtime.agent((await runtime.createAgent({ name: 'bob' })).api_key);
    await runtime.createAgent({ name: 'carol' });
    const sent = await alice.email.send({ to: ['bob@agents.test', 'x@example.com'], subject: 'S', text: 'T', attachments: [{ filename: 'f', content: b64('f'), content_type: 'text/plain' }] });
    await runtime.sim.advance({ seconds: 5 });
    await bob.email.reply(sent.message_id, { text: 'R' });
    await runtime.simClient().emailInbound({ raw: RAW });
    return runtime;
  }

  it('gives the same state and event log for the same seed and calls', async () => {
    const [one, two] = await Promise.all([scenario(7), scenario(7)]);
    expect(sha256Hex(canonicalJson(await one.sim.snapshot()))).toBe(sha256Hex(canonicalJson(await two.sim.snapshot())));
  });

  it('keeps mailboxes, threads and the outbox across snapshot and restore', async () => {
    const source = await scenario(3);
    const target = await createRuntime({ seed: 99 });
    await target.sim.restore(await source.sim.snapshot());
    expect(canonicalJson(await target.sim.snapshot())).toBe(canonicalJson(await source.sim.snapshot()));
    expect((await target.simClient().emailOutbox()).messages).toHaveLength(1);
  });
});
