import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SmtpMailTransport, createRuntime, type AgentClient, type Runtime } from '../../../src/index.js';

const b64 = (data: string | Uint8Array) => Buffer.from(data).toString('base64');

/** What the test's own relay received. */
interface Received {
  envelope: { from: string; to: string[] };
  raw: string;
  parsed: ParsedMail;
}

/** An SMTP relay the test starts: records every message; refuses recipients at refused.example. */
async function startRelay(): Promise<{ port: number; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (address.address.endsWith('@refused.example')) callback(Object.assign(new Error('5.1.1 unknown user'), { responseCode: 550 }));
      else callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then((parsed) => {
          received.push({
            envelope: { from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((rcpt) => rcpt.address) },
            raw: raw.toString('utf8'),
            parsed,
          });
          callback();
        }, callback);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('SmtpMailTransport (outbound mail through a real relay)', () => {
  let relay: Awaited<ReturnType<typeof startRelay>>;
  let transport: SmtpMailTransport;
  let runtime: Runtime;
  let alice: AgentClient;
  let bob: AgentClient;

  beforeEach(async () => {
    relay = await startRelay();
    transport = new SmtpMailTransport({ host: '127.0.0.1', port: relay.port, pool: false });
    runtime = await createRuntime({ seed: 1, providers: { mailTransport: transport } });
    alice = runtime.agent((await runtime.createAgent({ name: 'alice' })).api_key);
    bob = runtime.agent((await runtime.createAgent({ name: 'bob' })).api_key);
  });
  afterEach(async () => {
    transport.close();
    await relay.close();
  });

  it("delivers an agent's outbound mail to the relay intact: headers, bodies, attachments; agents and bcc not in the envelope's headers", async () => {
    const binary = randomBytes(20_000);
    const sent = await alice.email.send({
      to: ['ext@example.com', 'bob@agents.test'],
      cc: ['copy@example.org'],
      bcc: ['hidden@example.net'],
      subject: 'Angebot ✓ für Sie',
      text: 'Plain body',
      html: '<p>HTML body</p>',
      attachments: [
        { filename: 'blob.bin', content: b64(binary), content_type: 'application/octet-stream' },
        { filename: 'readme.txt', content: b64('read me'), content_type: 'text/plain' },
      ],
    });
    expect(relay.received).toHaveLength(1);
    const [{ envelope, raw, parsed }] = relay.received as [Received];
    expect(envelope).toEqual({ from: 'alice@agents.test', to: ['ext@example.com', 'copy@example.org', 'hidden@example.net'] });
    expect(raw).not.toMatch(/hidden@example\.net/);
    expect(raw).not.toMatch(/^bcc:/im);
    expect(parsed.messageId).toBe(`<${sent.message_id}@agents.test>`);
    expect(parsed.subject).toBe('Angebot ✓ für Sie');
    expect(parsed.from?.value[0]?.address).toBe('alice@agents.test');
    expect(parsed.text?.trim()).toBe('Plain body');
    expect(parsed.html).toBe('<p>HTML body</p>');
    expect(parsed.date?.toISOString()).toBe(new Date(Math.floor(Date.parse(sent.sent_at) / 1000) * 1000).toISOString());
    expect(parsed.attachments.map((attachment) => attachment.filename)).toEqual(['blob.bin', 'readme.txt']);
    expect(parsed.attachments[0]!.content.equals(binary)).toBe(true);
    expect(parsed.attachments[1]!.content.toString()).toBe('read me');

    // bob got it in-process, not through the relay.
    expect((await bob.email.list()).messages.map((message) => message.id)).toEqual([sent.message_id]);
    const [record] = (await runtime.simClient().emailOutbox()).messages;
    expect(record).toMatchObject({ status: 'sent', accepted: ['ext@example.com', 'copy@example.org', 'hidden@example.net'], rejected: [], error: null });
    expect((await runtime.sim.events(0, 1000)).events.filter((event) => event.type === 'email.outbound')).toHaveLength(1);
  });

  it('carries In-Reply-To and References of a reply to an outside sender', async () => {
    const inbound = await runtime.simClient().emailInbound({
      raw: 'From: ext@example.com\r\nTo: alice@agents.test\r\nSubject: Question\r\nMessage-ID: <q1@example.com>\r\nReferences: <q0@example.com>\r\n\r\nHow?\r\n',
    });
    const reply = await alice.email.reply(inbound.message_id, { text: 'Like this.' });
    const [{ parsed, envelope }] = relay.received as [Received];
    expect(envelope.to).toEqual(['ext@example.com']);
    expect(parsed.subject).toBe('Re: Question');
    expect(parsed.inReplyTo).toBe('<q1@example.com>');
    expect(parsed.references).toEqual(['<q0@example.com>', '<q1@example.com>']);
    expect(parsed.messageId).toBe(`<${reply.message_id}@agents.test>`);
    expect(reply.thread_id).toBe(inbound.thread_id);
  });

  it('records recipients the relay refuses as rejected with email.delivery_failed, the others as sent', async () => {
    const sent = await alice.email.send({ to: ['ok@example.com', 'nobody@refused.example'], subject: 's', text: 't' });
    expect(relay.received.map((message) => message.envelope.to)).toEqual([['ok@example.com']]);
    const [record] = (await runtime.simClient().emailOutbox()).messages;
    expect(record).toMatchObject({ status: 'sent', accepted: ['ok@example.com'], rejected: ['nobody@refused.example'] });
    const failed = (await runtime.sim.events(0, 1000)).events.filter((event) => event.type === 'email.delivery_failed');
    expect(failed.map((event) => event.data)).toEqual([expect.objectContaining({ message_id: sent.message_id, recipients: ['nobody@refused.example'] })]);
  });

  it('still answers 201 when the relay is unreachable, and keeps the message queued for a retry five minutes later', async () => {
    await relay.close();
    const sent = await alice.email.send({ to: ['ext@example.com'], subject: 's', text: 't' });
    expect(sent.message_id).toMatch(/^msg_/);
    const [record] = (await runtime.simClient().emailOutbox()).messages;
    expect(record).toMatchObject({ status: 'queued', accepted: [], rejected: [], attempts: 1 });
    expect(record!.recipient_states).toEqual([expect.objectContaining({ address: 'ext@example.com', state: 'deferred', attempts: 1, reply_code: null })]);
    expect(Date.parse(record!.next_attempt_at!) - Date.parse(sent.sent_at)).toBe(300_000);
    expect(record!.error).toMatch(/ECONNREFUSED|connect/i);
    expect((await runtime.sim.events(0, 1000)).events.filter((event) => event.type === 'email.delivery_failed')).toEqual([]);
    expect((await alice.email.list({ folder: 'sent' })).messages.map((message) => message.id)).toEqual([sent.message_id]);
    relay = await startRelay();
  });
});
