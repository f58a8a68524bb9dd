import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import {
  MailTransportError,
  SmtpMailTransport,
  createRuntime,
  type AgentClient,
  type HttpClient,
  type MailTransport,
  type OutboundMail,
  type OutboundRequest,
  type Runtime,
  type TransportOutcome,
} from '../../../src/index.js';

/**
 * A relay the test scripts: the n-th DATA is answered with `answers[n]` (the last one repeats);
 * every message it accepted is kept.
 */
async function scriptedRelay(answers: Array<{ code: number; message: string }>): Promise<{ port: number; accepted: string[][]; tries: number; close(): Promise<void> }> {
  const state = { accepted: [] as string[][], tries: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      stream.resume();
      stream.on('end', () => {
        const answer = answers[Math.min(state.tries, answers.length - 1)]!;
        state.tries++;
        if (answer.code >= 400) return callback(Object.assign(new Error(answer.message), { responseCode: answer.code }));
        state.accepted.push(session.envelope.rcptTo.map((rcpt) => rcpt.address));
        callback();
      });
    },
  });
  // A client that dies mid-conversation (the killed server) is no failure of the relay.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    get accepted() {
      return state.accepted;
    },
    get tries() {
      return state.tries;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A transport that answers each attempt with the next scripted outcome (the last repeats) and counts the attempts. */
function scriptedTransport(script: Array<(mail: OutboundMail) => TransportOutcome>): MailTransport & { calls: OutboundMail[] } {
  const calls: OutboundMail[] = [];
  return {
    calls,
    async send(mail) {
      calls.push(mail);
      return script[Math.min(calls.length - 1, script.length - 1)]!(mail);
    },
  };
}

const temporary = (): TransportOutcome => {
  throw new MailTransportError(451, '451 4.3.0 try again later');
};

describe('the outbound queue', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const item of open.splice(0)) await item.close();
  });

  async function world(transport: MailTransport, extra: Parameters<typeof createRuntime>[0] = {}): Promise<{ runtime: Runtime; alice: AgentClient }> {
    const runtime = await createRuntime({ seed: 7, providers: { mailTransport: transport }, ...extra });
    open.push(runtime);
    const alice = runtime.agent((await runtime.createAgent({ name: 'alice' })).api_key);
    return { runtime, alice };
  }

  it('retries a relay that answers 451 after five minutes of service time, then records the 250 once', async () => {
    const relay = await scriptedRelay([
      { code: 451, message: '4.3.0 greylisted, come back later' },
      { code: 250, message: 'ok' },
    ]);
    open.push(relay);
    const transport = new SmtpMailTransport({ host: '127.0.0.1', port: relay.port, pool: false });
    const { runtime, alice } = await world(transport);
    const sent = await alice.email.send({ to: ['ext@example.com'], subject: 'hello', text: 'hi' });

    let [record] = (await runtime.simClient().emailOutbox()).messages;
    expect(record).toMatchObject({ status: 'queued', attempts: 1, next_attempt_at: '2026-01-01T00:05:00.000Z' });
    expect(record!.recipient_states).toEqual([{ address: 'ext@example.com', state: 'deferred', attempts: 1, last_attempt_at: sent.sent_at, reply_code: 451, diagnostic: expect.stringContaining('greylisted') }]);
    await runtime.sim.advance({ seconds: 299 });
    expect(relay.tries).toBe(1);

    await runtime.sim.advance({ seconds: 1 });
    expect(relay.tries).toBe(2);
    expect(relay.accepted).toEqual([['ext@example.com']]);
    [record] = (await runtime.simClient().emailOutbox()).messages;
    expect(record).toMatchObject({ status: 'sent', attempts: 2, next_attempt_at: null, accepted: ['ext@example.com'], rejected: [] });
    expect(record!.recipient_states[0]).toMatchObject({ state: 'sent', attempts: 2, reply_code: 250 });
    const types = (await runtime.sim.events(0, 1000)).events.map((event) => event.type);
    expect(types.filter((type) => type === 'email.outbound')).toHaveLength(1);
    expect(types).not.toContain('email.delivery_failed');
    // Nothing more is tried, however long the clock runs.
    await runtime.sim.advance({ seconds: 86_400 });
    expect(relay.tries).toBe(2);
    transport.close();
  });

  it('bounces a 550 into the sender inbox as an RFC 3464 report threaded to the original, with email.delivery_failed and its webhook', async () => {
    const relay = await scriptedRelay([{ code: 550, message: '5.1.1 <gone@example.com>: no such user' }]);
    open.push(relay);
    const posted: OutboundRequest[] = [];
    const httpClient: HttpClient = {
      async request(request) {
        posted.push(request);
        return { status: 200, headers: {}, body: new Uint8Array() };
      },
    };
    const transport = new SmtpMailTransport({ host: '127.0.0.1', port: relay.port, pool: false });
    const { runtime, alice } = await world(transport, { providers: { mailTransport: transport, httpClient }, webhooks: [{ url: 'https://hooks.example/mail', secret: 'whsec_test' }] });
    const sent = await alice.email.send({ to: ['gone@example.com'], subject: 'Quarterly report', text: 'numbers' });

    const [record] = (await runtime.simClient().emailOutbox()).messages;
    expect(record).toMatchObject({ status: 'failed', attempts: 1, next_attempt_at: null, rejected: ['gone@example.com'] });
    expect(record!.recipient_states[0]).toMatchObject({ state: 'failed', reply_code: 550 });

    const inbox = (await alice.email.list()).messages;
    expect(inbox).toHaveLength(1);
    expect(inbox[0]).toMatchObject({ from: 'MAILER-DAEMON@agents.test', subject: 'Undelivered Mail Returned to Sender', thread_id: sent.thread_id, has_attachments: true });
    const bounce = await alice.email.get(inbox[0]!.id);
    expect(bounce.headers['In-Reply-To']).toBe(`<${sent.message_id}@agents.test>`);
    expect(bounce.headers['Content-Type']).toMatch(/^multipart\/report; report-type=delivery-status;/);
    expect(bounce.headers['Auto-Submitted']).toBe('auto-replied');
    expect(bounce.text).toContain('<gone@example.com>');
    expect(bounce.text).toContain('550');
    expect(bounce.attachments.map((attachment) => attachment.content_type)).toEqual(['message/delivery-status', 'text/rfc822-headers']);
    const status = Buffer.from((await alice.email.downloadAttachment(bounce.attachments[0]!.attachment_id)).bytes).toString('utf8');
    expect(status).toMatch(/^Reporting-MTA: dns; agents\.test\r\nArrival-Date: Thu, 01 Jan 2026 00:00:00 \+0000\r\n\r\n/);
    expect(status).toContain('Final-Recipient: rfc822; gone@example.com\r\nAction: failed\r\nStatus: 5.1.1\r\nDiagnostic-Code: smtp; 550 5.1.1 <gone@example.com>: no such user');
    const headers = Buffer.from((await alice.email.downloadAttachment(bounce.attachments[1]!.attachment_id)).bytes).toString('utf8');
    expect(headers).toContain(`Message-ID: <${sent.message_id}@agents.test>`);
    expect(headers).toContain('Subject: Quarterly report');

    const failed = (await runtime.sim.events(0, 1000)).events.filter((event) => event.type === 'email.delivery_failed');
    expect(failed.map((event) => event.data)).toEqual([expect.objectContaining({ message_id: sent.message_id, thread_id: sent.thread_id, recipients: ['gone@example.com'], bounce_message_id: bounce.id })]);
    for (let i = 0; i < 200 && !posted.some((request) => String(request.body).includes('email.delivery_failed')); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    const hook = posted.find((request) => String(request.body).includes('"email.delivery_failed"'));
    expect(JSON.parse(String(hook!.body))).toMatchObject({ type: 'email.delivery_failed', data: { message_id: sent.message_id, recipients: ['gone@example.com'] } });
    transport.close();
  });

  it('backs off 300 s doubling up to 4000 s and gives up after 5 days of service time with a bounce', async () => {
    const transport = scriptedTransport([temporary]);
    const { runtime, alice } = await world(transport);
    const sent = await alice.email.send({ to: ['slow@example.com'], subject: 'eventually', text: 'x' });
    const start = Date.parse(sent.sent_at);
    const nextAt = async () => Date.parse((await runtime.simClient().emailOutbox()).messages[0]!.next_attempt_at!) - start;
    const waits: number[] = [];
    let previous = 0;
    for (let i = 0; i < 6; i++) {
      const next = await nextAt();
      waits.push((next - previous) / 1000);
      previous = next;
      await runtime.sim.advance({ seconds: waits[waits.length - 1]! });
    }
    expect(waits).toEqual([300, 600, 1200, 2400, 4000, 4000]);
    expect(transport.calls).toHaveLength(7);

    await runtime.sim.advance({ seconds: 5 * 86_400 });
    const [record] = (await runtime.simClient().emailOutbox()).messages;
    expect(record).toMatchObject({ status: 'failed', next_attempt_at: null });
    expect(record!.recipient_states[0]).toMatchObject({ state: 'failed', reply_code: 451, last_attempt_at: '2026-01-06T00:00:00.000Z', attempts: transport.calls.length });
    const inbox = (await alice.email.list()).messages;
    expect(inbox.map((message) => message.subject)).toEqual(['Undelivered Mail Returned to Sender']);
    const bounce = await alice.email.get(inbox[0]!.id);
    expect(bounce.text).toContain('given up');
    const status = Buffer.from((await alice.email.downloadAttachment(bounce.attachments[0]!.attachment_id)).bytes).toString('utf8');
    expect(status).toContain('Action: failed\r\nStatus: 4.3.0\r\n');
    const calls = transport.calls.length;
    await runtime.sim.advance({ seconds: 86_400 });
    expect(transport.calls).toHaveLength(calls);
  });

  it('keeps per-recipient states: an accepted recipient is not sent again when another is retried', async () => {
    const transport = scriptedTransport([
      (mail) => ({ accepted: ['a@example.com'], rejected: ['b@example.com'], response: '250 ok', refusals: [{ address: 'b@example.com', replyCode: 452, response: '452 4.2.2 mailbox full' }] }),
      (mail) => ({ accepted: [...mail.envelope.to], rejected: [], response: '250 ok' }),
    ]);
    const { runtime, alice } = await world(transport);
    await alice.email.send({ to: ['a@example.com', 'b@example.com'], subject: 's', text: 't' });
    let [record] = (await runtime.simClient().emailOutbox()).messages;
    expect(record!.recipient_states.map((state) => [state.address, state.state, state.reply_code])).toEqual([
      ['a@example.com', 'sent', 250],
      ['b@example.com', 'deferred', 452],
    ]);
    expect(record!.status).toBe('queued');
    await runtime.sim.advance({ seconds: 300 });
    expect(transport.calls.map((mail) => mail.envelope.to)).toEqual([['a@example.com', 'b@example.com'], ['b@example.com']]);
    [record] = (await runtime.simClient().emailOutbox()).messages;
    expect(record).toMatchObject({ status: 'sent', accepted: ['a@example.com', 'b@example.com'] });
  });

  it('treats an error without a reply code (connection refused, timeout) as temporary and any 5xx as permanent', () => {
    expect(new MailTransportError(null, 'connect ECONNREFUSED').temporary).toBe(true);
    expect(new MailTransportError(421, '421 4.3.2 shutting down').temporary).toBe(true);
    expect(new MailTransportError(554, '554 5.7.1 rejected').temporary).toBe(false);
  });

  it('counts a thrown non-transport error as temporary, and honours a shorter queue lifetime', async () => {
    const transport = scriptedTransport([
      () => {
        throw new Error('socket hang up');
      },
    ]);
    const { runtime, alice } = await world(transport, { email: { queue: { minimalBackoff: '1m', maximalBackoff: '2m', lifetime: '10m' } } });
    await alice.email.send({ to: ['x@example.com'], subject: 's', text: 't' });
    expect((await runtime.simClient().emailOutbox()).messages[0]!.next_attempt_at).toBe('2026-01-01T00:01:00.000Z');
    await runtime.sim.advance({ seconds: 600 });
    const [record] = (await runtime.simClient().emailOutbox()).messages;
    expect(record).toMatchObject({ status: 'failed' });
    // 0, 1, 3, 5, 7, 9 and the last at 10 minutes.
    expect(transport.calls).toHaveLength(7);
    expect(record!.recipient_states[0]).toMatchObject({ reply_code: null, diagnostic: 'socket hang up', last_attempt_at: '2026-01-01T00:10:00.000Z' });
  });
});
