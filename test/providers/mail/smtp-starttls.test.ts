import net from 'node:net';
import tls from 'node:tls';
import nodemailer from 'nodemailer';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, type ListeningEdge, type Runtime } from '../../../src/index.js';
import type { Envelope, ReceiverPolicy } from '../../../src/providers/mail/smtp-receiver/receiver-options.js';
import { startSmtpReceiver, type RunningReceiver } from '../../../src/providers/mail/smtp-receiver/smtp-receiver.js';
import { startDnsServer, type TestDnsServer } from '../../support/dns-server.js';
import { TLS } from './auth/fixtures.js';

/** Reads complete (possibly multi-line) SMTP replies from a socket, clear or TLS. */
function replyReader(socket: net.Socket) {
  let text = '';
  const complete: string[] = [];
  let wake = () => {};
  let ended = false;
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
    const reply = /(?:\d{3}-[^\r\n]*\r\n)*\d{3}(?: [^\r\n]*)?\r\n/y;
    let used = 0;
    for (let match = reply.exec(text); match; match = reply.exec(text)) {
      complete.push(match[0].slice(0, -2));
      used = reply.lastIndex;
    }
    text = text.slice(used);
    wake();
  });
  socket.on('close', () => {
    ended = true;
    wake();
  });
  socket.on('error', () => {});
  const replies = async (count: number): Promise<string[]> => {
    while (complete.length < count && !ended) await new Promise<void>((resolve) => (wake = resolve));
    return complete.splice(0, count);
  };
  return {
    replies,
    send: async (data: string, count = 1) => {
      socket.write(data);
      return replies(count);
    },
    ended: () => ended,
  };
}

/** A policy that accepts every recipient and keeps each message with its envelope. */
class Recorder implements ReceiverPolicy {
  envelopes: Envelope[] = [];
  authenticate = (user: string, pass: string) => user === 'u' && pass === 'p';
  mailFrom = () => null;
  rcptTo = () => null;
  message(_bytes: Buffer, envelope: Envelope): Promise<string> {
    this.envelopes.push(envelope);
    return Promise.resolve('250 2.0.0 OK');
  }
}

describe('STARTTLS on the SMTP receiver (RFC 3207)', () => {
  const closing: Array<() => Promise<unknown> | void> = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });

  async function receiver(requireTls = false): Promise<{ running: RunningReceiver; policy: Recorder }> {
    const policy = new Recorder();
    const running = await startSmtpReceiver('127.0.0.1', 0, { domain: 'mx.agents.test', maxMessageBytes: 10_000, idleSeconds: 30, tls: tls.createSecureContext(TLS), requireTls }, policy);
    closing.push(() => running.close());
    return { running, policy };
  }

  async function connect(port: number) {
    const socket = net.connect({ port, host: '127.0.0.1' });
    closing.push(() => void socket.destroy());
    const reader = replyReader(socket);
    expect(await reader.replies(1)).toEqual(['220 mx.agents.test ESMTP agent-services']);
    return { socket, ...reader };
  }

  /** Starts TLS over `socket` as a client, trusting the test certificate. */
  async function secure(socket: net.Socket) {
    const secured = tls.connect({ socket, ca: TLS.cert, servername: 'mx.agents.test' });
    closing.push(() => void secured.destroy());
    await new Promise<void>((resolve, reject) => {
      secured.once('secureConnect', resolve);
      secured.once('error', reject);
    });
    return { secured, ...replyReader(secured) };
  }

  it('offers STARTTLS, starts over after it, and drops what was pipelined behind it', async () => {
    const { running, policy } = await receiver();
    const client = await connect(running.port);
    const [ehlo] = await client.send('EHLO first.test\r\n');
    expect(ehlo!.split('\r\n')).toContain('250-STARTTLS');
    await client.send('AUTH PLAIN AHUAcA==\r\n');
    // A command smuggled behind STARTTLS in the same write must never run in the secure session.
    expect(await client.send('STARTTLS\r\nMAIL FROM:<smuggled@example.test>\r\n')).toEqual(['220 2.0.0 Ready to start TLS']);
    const session = await secure(client.socket);
    // Nothing of before survives: not HELO (MAIL needs a new EHLO), not the smuggled MAIL, not AUTH.
    expect(await session.send('MAIL FROM:<a@example.test>\r\n')).toEqual(['503 5.5.1 Send HELO or EHLO first']);
    const [again] = await session.send('EHLO second.test\r\n');
    expect(again!.split('\r\n')).not.toContain('250-STARTTLS');
    expect(await session.send('STARTTLS\r\n')).toEqual(['503 5.5.1 TLS already active']);
    const replies = await session.send('MAIL FROM:<a@example.test>\r\nRCPT TO:<b@example.test>\r\nDATA\r\nSubject: x\r\n\r\nhi\r\n.\r\n', 4);
    expect(replies.map((reply) => reply.slice(0, 3))).toEqual(['250', '250', '354', '250']);
    expect(policy.envelopes).toEqual([{ from: 'a@example.test', recipients: ['b@example.test'], user: null, client: { address: '127.0.0.1', helo: 'second.test' }, tls: true }]);
  });

  it('with requireTls answers MAIL and AUTH before STARTTLS with 530 5.7.0, and takes them after', async () => {
    const { running, policy } = await receiver(true);
    const client = await connect(running.port);
    await client.send('EHLO c.test\r\n');
    expect(await client.send('MAIL FROM:<a@example.test>\r\n')).toEqual(['530 5.7.0 Must issue a STARTTLS command first']);
    expect(await client.send('AUTH PLAIN AHUAcA==\r\n')).toEqual(['530 5.7.0 Must issue a STARTTLS command first']);
    await client.send('STARTTLS\r\n');
    const session = await secure(client.socket);
    await session.send('EHLO c.test\r\n');
    expect(await session.send('AUTH PLAIN AHUAcA==\r\n')).toEqual(['235 2.7.0 Authentication successful']);
    expect(await session.send('MAIL FROM:<a@example.test>\r\n')).toEqual(['250 2.1.0 OK']);
    expect(policy.envelopes).toEqual([]);
  });

  it('answers STARTTLS with arguments 501, and ends a session whose handshake fails without stopping the receiver', async () => {
    const { running } = await receiver();
    const client = await connect(running.port);
    await client.send('EHLO c.test\r\n');
    expect(await client.send('STARTTLS now\r\n')).toEqual(['501 5.5.4 Syntax: STARTTLS']);
    await client.send('STARTTLS\r\n');
    client.socket.write('this is not a TLS ClientHello\r\n');
    await client.replies(1);
    expect(client.ended()).toBe(true);
    const next = await connect(running.port);
    expect((await next.send('EHLO c.test\r\n'))[0]).toMatch(/^250-/);
  });
});

describe('STARTTLS on the SMTP listener, with nodemailer', () => {
  let runtime: Runtime | undefined;
  let dns: TestDnsServer | undefined;
  afterEach(async () => {
    await runtime?.close();
    await dns?.close();
  });

  it('refuses requireTls without a certificate when it starts listening', async () => {
    runtime = await createRuntime({ seed: 1, email: { smtp: { port: 0, requireTls: true } } });
    await expect(runtime.listen()).rejects.toThrow(/requireTls needs tls/);
  });

  it('delivers over STARTTLS, and under requireTls refuses a client that will not use it', async () => {
    dns = await startDnsServer({});
    runtime = await createRuntime({ seed: 1, email: { smtp: { port: 0, tls: TLS, requireTls: true, dnsServer: dns.address } } });
    const [edge] = (await runtime.listen()) as [ListeningEdge];
    const bob = runtime.agent((await runtime.createAgent({ name: 'bob' })).api_key);
    const secure = nodemailer.createTransport({ host: '127.0.0.1', port: edge.port, secure: false, requireTLS: true, tls: { ca: TLS.cert, servername: 'mx.agents.test' } });
    const info = (await secure.sendMail({ from: 'zoe@example.com', to: 'bob@agents.test', subject: 'over TLS', text: 'secret' })) as { response: string };
    secure.close();
    expect(info.response).toMatch(/^250 /);
    const [summary] = (await bob.email.list()).messages;
    expect(summary).toMatchObject({ subject: 'over TLS', from: 'zoe@example.com' });
    const clear = nodemailer.createTransport({ host: '127.0.0.1', port: edge.port, secure: false, ignoreTLS: true });
    await expect(clear.sendMail({ from: 'zoe@example.com', to: 'bob@agents.test', subject: 'in clear', text: 'x' })).rejects.toMatchObject({ responseCode: 530 });
    clear.close();
    expect((await bob.email.list()).messages).toHaveLength(1);
  });
});
