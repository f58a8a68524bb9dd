import { randomBytes } from 'node:crypto';
import net from 'node:net';
import nodemailer from 'nodemailer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson, connect, createRuntime, serve, type AgentClient, type ListeningEdge, type Runtime, type RunningServer } from '../../../src/index.js';
import { dataOf, openSmtp } from './smtp-client.js';

const RAW = [
  'From: "Zoë" <zoe@example.com>',
  'To: bob@agents.test',
  'Subject: =?UTF-8?Q?Caf=C3=A9_=E2=98=95?=',
  'Message-ID: <same-bytes@example.com>',
  'Content-Type: text/plain; charset=utf-8',
  '',
  'one line',
  '.a line starting with a dot',
  '',
].join('\r\n');

describe('SMTP listener', () => {
  let runtime: Runtime;
  let http: RunningServer;
  let smtp: ListeningEdge;
  let bob: AgentClient;
  let bobKey: string;

  beforeEach(async () => {
    runtime = await createRuntime({ seed: 1, email: { smtp: { port: 0 } } });
    http = await serve(runtime, { port: 0 });
    [smtp] = (await runtime.listen()) as [ListeningEdge];
    bobKey = (await runtime.createAgent({ name: 'bob' })).api_key;
    bob = connect({ baseUrl: http.url, apiKey: bobKey });
  });
  afterEach(async () => {
    await http.close();
    await runtime.close();
  });

  it('receives a multipart message from nodemailer that the agent reads over the API, attachments byte-identical', async () => {
    const binary = randomBytes(64 * 1024);
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtp.port, secure: false, ignoreTLS: true });
    const info = await transport.sendMail({
      from: '"Zoë Müller" <zoe@example.com>',
      to: 'bob@agents.test',
      subject: 'Grüße 👋 — 東京',
      text: 'Hallo Bob,\nanbei zwei Dateien.',
      html: '<p>Hallo Bob, <b>anbei</b> zwei Dateien.</p>',
      attachments: [
        { filename: 'daten.bin', content: binary, contentType: 'application/octet-stream' },
        { filename: 'notizen-ü.txt', content: 'Zeile 1\nZeile 2 ✓\n', contentType: 'text/plain; charset=utf-8' },
      ],
    });
    transport.close();
    expect(info.accepted).toEqual(['bob@agents.test']);
    expect(info.response).toMatch(/^250 .*queued as msg_/);

    const { messages } = await bob.email.list();
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ from: 'zoe@example.com', subject: 'Grüße 👋 — 東京', has_attachments: true, read: false });
    const message = await bob.email.get(messages[0]!.id);
    expect(message.text).toBe('Hallo Bob,\nanbei zwei Dateien.');
    expect(message.html).toBe('<p>Hallo Bob, <b>anbei</b> zwei Dateien.</p>');
    expect(message.headers['Message-ID']).toBe(info.messageId);
    expect(message.headers.Subject).toBe('Grüße 👋 — 東京');
    expect(message.attachments.map(({ filename, content_type, size }) => ({ filename, content_type, size }))).toEqual([
      { filename: 'daten.bin', content_type: 'application/octet-stream', size: binary.length },
      { filename: 'notizen-ü.txt', content_type: 'text/plain', size: Buffer.byteLength('Zeile 1\nZeile 2 ✓\n') },
    ]);
    const bytes = await Promise.all(
      message.attachments.map(async (attachment) => {
        expect(attachment.url.startsWith(`${http.url}/files/attachments/`)).toBe(true);
        const response = await fetch(attachment.url, { headers: { authorization: `Bearer ${bobKey}` } });
        expect(response.status).toBe(200);
        return Buffer.from(await response.arrayBuffer());
      }),
    );
    expect(bytes[0]!.equals(binary)).toBe(true);
    expect(bytes[1]!.toString('utf8')).toBe('Zeile 1\nZeile 2 ✓\n');
    // Anyone else's key gets 404 for the same url.
    const mallory = (await runtime.createAgent({ name: 'mallory' })).api_key;
    expect((await fetch(message.attachments[0]!.url, { headers: { authorization: `Bearer ${mallory}` } })).status).toBe(404);
    const received = (await runtime.sim.events(0, 1000)).events.filter((event) => event.type === 'email.received');
    expect(received.map((event) => event.agent_id)).toEqual([(await bob.identity.getProfile()).agent_id]);
  });

  it('stores text-only and html-only mail from nodemailer as written: no added line break, no made-up part', async () => {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtp.port, secure: false, ignoreTLS: true });
    await transport.sendMail({ from: 'a@example.com', to: 'bob@agents.test', subject: 'text only', text: 'Hello' });
    await transport.sendMail({ from: 'Ann <a@example.com>', to: 'Bob <bob@agents.test>', subject: 'html only', html: '<p>Hi</p>' });
    transport.close();
    const { messages } = await bob.email.list();
    const bySubject = Object.fromEntries(await Promise.all(messages.map(async (listed) => [listed.subject, await bob.email.get(listed.id)] as const)));
    expect(bySubject['text only']).toMatchObject({ text: 'Hello', html: null, from: 'a@example.com' });
    expect(bySubject['html only']).toMatchObject({ text: null, html: '<p>Hi</p>', from: 'a@example.com', to: ['bob@agents.test'] });
    expect(messages.find((listed) => listed.subject === 'html only')!.snippet).toBe('Hi');
  });

  it('refuses unknown recipients at RCPT TO with 550 in a raw SMTP conversation, and takes the known one', async () => {
    const session = await openSmtp(smtp.port);
    try {
      expect(session.greeting).toMatch(/^220 /);
      expect(await session.command('EHLO client.example.com')).toMatch(/^250[ -]/);
      expect(await session.command('MAIL FROM:<zoe@example.com>')).toMatch(/^250 /);
      expect(await session.command('RCPT TO:<nobody@agents.test>')).toMatch(/^550 /);
      expect(await session.command('RCPT TO:<someone@example.com>')).toMatch(/^550 /);
      expect(await session.command('RCPT TO:<Bob@Agents.Test>')).toMatch(/^250 /);
      expect(await session.command('DATA')).toMatch(/^354 /);
      expect(await session.data(dataOf(RAW))).toMatch(/^250 .*queued as msg_/);
      expect(await session.command('QUIT')).toMatch(/^221 /);
    } finally {
      session.close();
    }
    const { messages } = await bob.email.list();
    expect(messages.map((message) => message.subject)).toEqual(['Café ☕']);
    expect((await bob.email.get(messages[0]!.id)).text).toBe('one line\n.a line starting with a dot');
  });

  it('answers a whole pipelined transaction and QUIT sent in one write, in order, then closes the connection', async () => {
    const { replies, closed } = await new Promise<{ replies: string; closed: boolean }>((resolve, reject) => {
      const socket = net.connect({ port: smtp.port, host: '127.0.0.1' });
      let buffer = '';
      socket.on('error', reject);
      socket.once('data', () => socket.write(`HELO client.example.com\r\nMAIL FROM:<zoe@example.com>\r\nRCPT TO:<bob@agents.test>\r\nDATA\r\n${dataOf(RAW)}QUIT\r\n`));
      socket.on('data', (chunk: Buffer) => (buffer += chunk.toString('utf8')));
      // The server ends the session: the client's socket sees the end without closing it itself.
      socket.on('close', () => resolve({ replies: buffer, closed: true }));
    });
    expect(closed).toBe(true);
    expect(
      replies
        .split('\r\n')
        .filter(Boolean)
        .map((line) => line.slice(0, 3)),
    ).toEqual(['220', '250', '250', '250', '354', '250', '221']);
    expect((await bob.email.list()).messages.map((message) => message.subject)).toEqual(['Café ☕']);
  });

  it('answers DATA without an accepted recipient with 503', async () => {
    const session = await openSmtp(smtp.port);
    try {
      await session.command('EHLO client.example.com');
      await session.command('MAIL FROM:<zoe@example.com>');
      expect(await session.command('RCPT TO:<nobody@agents.test>')).toMatch(/^550 /);
      expect(await session.command('DATA')).toMatch(/^503 /);
    } finally {
      session.close();
    }
    expect((await bob.email.list()).messages).toEqual([]);
  });

  it('announces its size limit and refuses a larger message with 552', async () => {
    const smallWorld = await createRuntime({ seed: 1, email: { smtp: { port: 0, maxMessageBytes: 1000 } } });
    await smallWorld.createAgent({ name: 'bob' });
    const [small] = (await smallWorld.listen()) as [ListeningEdge];
    const session = await openSmtp(small.port);
    try {
      expect(await session.command('EHLO client.example.com')).toMatch(/250[ -]SIZE 1000/);
      await session.command('MAIL FROM:<zoe@example.com>');
      await session.command('RCPT TO:<bob@agents.test>');
      await session.command('DATA');
      expect(await session.data(dataOf(`Subject: big\r\n\r\n${'x'.repeat(2000)}\r\n`))).toMatch(/^552 /);
    } finally {
      session.close();
    }
    expect((await smallWorld.sim.events(0, 100)).events.filter((event) => event.type === 'email.received')).toEqual([]);
    await smallWorld.close();
  });

  it('stores the same message for the same bytes as POST /_sim/email/inbound with raw', async () => {
    const viaSim = await createRuntime({ seed: 1 });
    await viaSim.createAgent({ name: 'bob' });
    await viaSim.simClient().emailInbound({ raw: RAW });

    const session = await openSmtp(smtp.port);
    try {
      await session.command('EHLO client.example.com');
      await session.command('MAIL FROM:<zoe@example.com>');
      await session.command('RCPT TO:<bob@agents.test>');
      await session.command('DATA');
      expect(await session.data(dataOf(RAW))).toMatch(/^250 /);
    } finally {
      session.close();
    }
    const collections = (snapshot: Awaited<ReturnType<Runtime['sim']['snapshot']>>) => Object.fromEntries(Object.entries(snapshot.store.collections).filter(([name]) => name.startsWith('email_') || name === 'events'));
    expect(canonicalJson(collections(await runtime.sim.snapshot()))).toBe(canonicalJson(collections(await viaSim.sim.snapshot())));
  });
});
