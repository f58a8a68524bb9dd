import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope, ReceiverOptions, ReceiverPolicy } from '../../../../src/providers/mail/smtp-receiver/receiver-options.js';
import { startSmtpReceiver, type RunningReceiver } from '../../../../src/providers/mail/smtp-receiver/smtp-receiver.js';
import { openRaw, type RawClient } from './raw-client.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const codes = (replies: string[]) => replies.map((reply) => reply.slice(0, 3));

/** A policy that accepts recipients at example.test and keeps every message it is given. */
class Recorder implements ReceiverPolicy {
  messages: Array<{ bytes: string; envelope: Envelope }> = [];
  /** When set, the store holds the next message until `release` is called. */
  hold = false;
  release: (reply: string) => void = () => {};
  fail = false;
  authenticate?: (user: string, pass: string) => boolean;

  mailFrom(address: string, user: string | null): string | null {
    return address === 'agent@example.test' && user === null ? '550 5.7.1 authenticate first' : null;
  }

  rcptTo(address: string): string | null | Promise<string | null> {
    return address.endsWith('@example.test') ? null : `550 5.1.1 <${address}>: no such mailbox here`;
  }

  message(bytes: Buffer, envelope: Envelope): Promise<string> {
    if (this.fail) return Promise.reject(new Error('disk full'));
    this.messages.push({ bytes: bytes.toString('latin1'), envelope });
    const reply = `250 2.0.0 OK: queued as m${this.messages.length}`;
    if (!this.hold) return Promise.resolve(reply);
    return new Promise((resolve) => (this.release = () => resolve(reply)));
  }
}

describe('the SMTP receiver', () => {
  const open: Array<{ receiver: RunningReceiver; clients: RawClient[] }> = [];
  afterEach(async () => {
    for (const { receiver, clients } of open.splice(0)) {
      for (const client of clients) client.destroy();
      await receiver.close();
    }
  });

  async function receiver(options: Partial<ReceiverOptions> = {}, policy = new Recorder()) {
    const running = await startSmtpReceiver('127.0.0.1', 0, { domain: 'mx.example.test', maxMessageBytes: 1000, idleSeconds: 30, ...options }, policy);
    const entry = { receiver: running, clients: [] as RawClient[] };
    open.push(entry);
    const connect = async () => {
      const client = await openRaw(running.port);
      entry.clients.push(client);
      return client;
    };
    return { running, policy, connect };
  }

  /** A client that has said EHLO. */
  async function greeted(connect: () => Promise<RawClient>): Promise<RawClient> {
    const client = await connect();
    await client.send('EHLO client.test\r\n');
    return client;
  }

  it('greets with its domain and "ESMTP" once, and announces its extensions; AUTH only with an authenticator', async () => {
    const { connect } = await receiver();
    const client = await connect();
    expect(client.greeting).toBe('220 mx.example.test ESMTP agent-services');
    const [ehlo] = await client.send('EHLO client.test\r\n');
    expect(ehlo!.split('\r\n')).toEqual(['250-mx.example.test', '250-PIPELINING', '250-8BITMIME', '250-SMTPUTF8', '250-ENHANCEDSTATUSCODES', '250-CHUNKING', '250 SIZE 1000']);
    expect(await client.send('HELO client.test\r\n')).toEqual(['250 mx.example.test']);
    expect(codes(await client.send('AUTH PLAIN\r\nSTARTTLS\r\nVRFY bob\r\nHELP\r\nNOOP\r\nEXPN list\r\n', 6))).toEqual(['502', '502', '252', '214', '250', '502']);
    const withAuth = new Recorder();
    withAuth.authenticate = () => true;
    const second = await (await receiver({}, withAuth)).connect();
    expect((await second.send('EHLO client.test\r\n'))[0]).toMatch(/\r\n250 AUTH PLAIN LOGIN$/);
  });

  it('answers every command of one write in order, in one batch, and takes commands after 354 as message', async () => {
    const { policy, connect } = await receiver();
    const client = await connect();
    const body = 'Subject: pipelined\r\n\r\nMAIL FROM:<evil@example.test>\r\n..dot\r\n';
    const replies = await client.send(
      `EHLO c\r\nMAIL FROM:<a@b.test> BODY=8BITMIME SMTPUTF8\r\nRCPT TO:<x@example.test>\r\nRCPT TO:<y@elsewhere.test>\r\nRCPT TO:<z@example.test>\r\nDATA\r\n${body}.\r\nMAIL FROM:<>\r\nRCPT TO:<x@example.test>\r\nDATA\r\n.\r\nQUIT\r\n`,
      11,
    );
    expect(codes(replies)).toEqual(['250', '250', '250', '550', '250', '354', '250', '250', '250', '354', '250']);
    expect(replies[6]).toBe('250 2.0.0 OK: queued as m1');
    expect(await client.closed()).toEqual(['221 2.0.0 Bye']);
    expect(policy.messages).toEqual([
      {
        bytes: 'Subject: pipelined\r\n\r\nMAIL FROM:<evil@example.test>\r\n.dot\r\n',
        envelope: { from: 'a@b.test', recipients: ['x@example.test', 'z@example.test'], user: null, client: { address: '127.0.0.1', helo: 'c' }, tls: false },
      },
      { bytes: '', envelope: { from: '', recipients: ['x@example.test'], user: null, client: { address: '127.0.0.1', helo: 'c' }, tls: false } },
    ]);
  });

  it('reads the same message however its DATA is cut into writes, at every byte boundary', async () => {
    const { policy, connect } = await receiver();
    const client = await greeted(connect);
    const message = 'Subject: s\r\n\r\n.a\r\n..\r\n.\rb\r\nc\n.\nd\r\n';
    const wire = `${message.replace(/(^|\r\n)\./g, '$1..')}.\r\n`;
    for (let cut = 1; cut < wire.length; cut++) {
      expect(codes(await client.send('MAIL FROM:<a@b.test>\r\nRCPT TO:<x@example.test>\r\nDATA\r\n', 3))).toEqual(['250', '250', '354']);
      await client.write(wire.slice(0, cut));
      await new Promise((resolve) => setImmediate(resolve));
      expect(await client.send(wire.slice(cut))).toEqual([`250 2.0.0 OK: queued as m${cut}`]);
    }
    expect(new Set(policy.messages.map((stored) => stored.bytes))).toEqual(new Set([message]));
  });

  it('sends the 250 for a message only once the store has it, and no later reply before it', async () => {
    const policy = new Recorder();
    policy.hold = true;
    const { connect } = await receiver({}, policy);
    const client = await greeted(connect);
    await client.send('MAIL FROM:<a@b.test>\r\nRCPT TO:<x@example.test>\r\nDATA\r\n', 3);
    await client.write('hi\r\n.\r\nNOOP\r\nRSET\r\n');
    while (policy.messages.length === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(client.unread()).toEqual([]);
    policy.release('');
    expect(await client.replies(3)).toEqual(['250 2.0.0 OK: queued as m1', '250 2.0.0 OK', '250 2.0.0 OK']);
  });

  it('holds back a flood of pipelined commands sent while a message is stored, and answers all of them after it', async () => {
    const policy = new Recorder();
    policy.hold = true;
    const { connect } = await receiver({}, policy);
    const client = await greeted(connect);
    await client.send('MAIL FROM:<a@b.test>\r\nRCPT TO:<x@example.test>\r\nDATA\r\n', 3);
    // More than the 64 KiB held while storing: the socket is paused and TCP holds the rest.
    const flood = client.write(`hi\r\n.\r\n${'NOOP\r\n'.repeat(30_000)}QUIT\r\n`);
    while (policy.messages.length === 0) await new Promise((resolve) => setImmediate(resolve));
    policy.release('');
    await flood;
    const replies = await client.closed();
    expect(replies.length).toBe(30_002);
    expect(replies[0]).toBe('250 2.0.0 OK: queued as m1');
    expect(new Set(replies.slice(1, -1))).toEqual(new Set(['250 2.0.0 OK']));
    expect(replies.at(-1)).toBe('221 2.0.0 Bye');
  });

  it('answers a pipelined batch in one write, also when its recipients are decided asynchronously', async () => {
    const policy = new Recorder();
    const decide = policy.rcptTo.bind(policy);
    // Each decision takes a few turns of the event loop: time for the client to read anything sent before it.
    policy.rcptTo = async (address) => {
      for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
      return decide(address);
    };
    const { running } = await receiver({}, policy);
    const socket = net.connect({ port: running.port, host: '127.0.0.1', noDelay: true });
    const chunks: string[] = [];
    let wake = () => {};
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk.toString('latin1'));
      wake();
    });
    const until = async (count: number) => {
      while (chunks.join('').split('\r\n').length - 1 < count) await new Promise<void>((resolve) => (wake = resolve));
    };
    await until(1);
    socket.write('EHLO c\r\n');
    await until(8);
    chunks.length = 0;
    socket.write('MAIL FROM:<a@b.test>\r\nRCPT TO:<x@example.test>\r\nRCPT TO:<y@elsewhere.test>\r\nDATA\r\n');
    await until(4);
    socket.destroy();
    expect(chunks).toEqual(['250 2.1.0 OK\r\n250 2.1.5 OK\r\n550 5.1.1 <y@elsewhere.test>: no such mailbox here\r\n354 End data with <CR><LF>.<CR><LF>\r\n']);
  });

  it('answers every command of a client that sends far more than it reads, once it reads', async () => {
    const { running } = await receiver();
    const socket = net.connect({ port: running.port, host: '127.0.0.1' });
    socket.pause();
    await new Promise((resolve) => socket.once('connect', resolve));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    // About 560 KiB of replies: the receiver stops reading while they wait for the client.
    await new Promise((resolve) => socket.write(`EHLO c\r\n${'NOOP\r\n'.repeat(40_000)}QUIT\r\n`, resolve));
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.resume();
    await closed;
    const lines = text.split('\r\n').filter((line) => /^\d{3} /.test(line));
    expect(lines.length).toBe(40_003);
    expect(lines.filter((line) => line === '250 2.0.0 OK').length).toBe(40_000);
    expect(lines.at(-1)).toBe('221 2.0.0 Bye');
  });

  it('answers 451 4.3.0 when the store fails, and the session goes on', async () => {
    const policy = new Recorder();
    policy.fail = true;
    const { connect } = await receiver({}, policy);
    const client = await greeted(connect);
    expect(codes(await client.send('MAIL FROM:<a@b.test>\r\nRCPT TO:<x@example.test>\r\nDATA\r\nhi\r\n.\r\nNOOP\r\n', 5))).toEqual(['250', '250', '354', '451', '250']);
  });

  it('answers 451 when the store throws instead of rejecting, and 421 (closing) when a policy check throws', async () => {
    const policy = new Recorder();
    policy.message = () => {
      throw new Error('not a promise');
    };
    policy.rcptTo = (address) => {
      if (address === 'boom@example.test') throw new Error('lookup failed');
      return null;
    };
    const { connect } = await receiver({}, policy);
    const client = await greeted(connect);
    expect(codes(await client.send('MAIL FROM:<a@b.test>\r\nRCPT TO:<x@example.test>\r\nDATA\r\nhi\r\n.\r\n', 4))).toEqual(['250', '250', '354', '451']);
    await client.write('MAIL FROM:<a@b.test>\r\nRCPT TO:<boom@example.test>\r\n');
    expect(await client.closed()).toEqual(['250 2.1.0 OK', '421 4.3.0 Internal error, closing connection']);
  });

  it('waits for a recipient decided asynchronously before the next command, in order; a rejected decision is 421 (closing)', async () => {
    const policy = new Recorder();
    const decide = policy.rcptTo.bind(policy);
    policy.rcptTo = async (address) => {
      await new Promise((resolve) => setTimeout(resolve, address.startsWith('slow') ? 20 : 1));
      if (address === 'boom@example.test') throw new Error('lookup failed');
      return decide(address);
    };
    const { connect } = await receiver({}, policy);
    const client = await greeted(connect);
    const replies = await client.send('MAIL FROM:<a@b.test>\r\nRCPT TO:<slow@example.test>\r\nRCPT TO:<x@elsewhere.test>\r\nRCPT TO:<y@example.test>\r\nDATA\r\nhi\r\n.\r\nNOOP\r\n', 7);
    expect(codes(replies)).toEqual(['250', '250', '550', '250', '354', '250', '250']);
    expect(policy.messages.map((stored) => stored.envelope.recipients)).toEqual([['slow@example.test', 'y@example.test']]);
    await client.write('MAIL FROM:<a@b.test>\r\nRCPT TO:<boom@example.test>\r\nNOOP\r\n');
    expect(await client.closed()).toEqual(['250 2.1.0 OK', '421 4.3.0 Internal error, closing connection']);
  });

  it('takes BDAT chunks, BDAT 0 LAST included, and drains a refused chunk without reading it as commands', async () => {
    const { policy, connect } = await receiver();
    const client = await greeted(connect);
    expect(await client.send('BDAT 6\r\nQUIT\r\n', 1)).toEqual(['503 5.5.1 Need MAIL before RCPT']);
    const replies = await client.send('MAIL FROM:<a@b.test>\r\nRCPT TO:<x@example.test>\r\nBDAT 14\r\nSubject: a\r\n\r\nBDAT 9\r\n.line\r\n\r\nBDAT 0 LAST\r\n', 5);
    expect(replies).toEqual(['250 2.1.0 OK', '250 2.1.5 OK', '250 2.0.0 14 octets received', '250 2.0.0 23 octets received', '250 2.0.0 OK: queued as m1']);
    expect(await client.send('MAIL FROM:<a@b.test>\r\nRCPT TO:<x@example.test>\r\nBDAT 3 LAST\r\nxyz', 3)).toEqual(['250 2.1.0 OK', '250 2.1.5 OK', '250 2.0.0 OK: queued as m2']);
    expect(policy.messages.map((stored) => stored.bytes)).toEqual(['Subject: a\r\n\r\n.line\r\n\r\n', 'xyz']);
    expect(codes(await client.send('MAIL FROM:<a@b.test>\r\nRCPT TO:<x@example.test>\r\nBDAT 2\r\nabDATA\r\nBDAT x\r\n', 5))).toEqual(['250', '250', '250', '503', '501']);
  });

  it('drains a message over the size limit, answers 552 5.3.4, keeps nothing and goes on; SIZE= over the limit is 552 at MAIL', async () => {
    const { policy, connect } = await receiver({ maxMessageBytes: 100 });
    const client = await greeted(connect);
    expect(await client.send('MAIL FROM:<a@b.test> SIZE=101\r\n')).toEqual(['552 5.3.4 Message size exceeds the limit of 100 bytes']);
    await client.send('MAIL FROM:<a@b.test> SIZE=100\r\nRCPT TO:<x@example.test>\r\nDATA\r\n', 3);
    await client.write(`${'x'.repeat(60)}\r\n`);
    await client.write(`${'QUIT\r\n'.repeat(30)}`);
    expect(await client.send('.\r\nNOOP\r\n', 2)).toEqual(['552 5.3.4 Message size exceeds the limit of 100 bytes', '250 2.0.0 OK']);
    expect(codes(await client.send('MAIL FROM:<a@b.test>\r\nRCPT TO:<x@example.test>\r\nBDAT 60\r\n' + 'y'.repeat(60) + 'BDAT 60 LAST\r\n' + 'y'.repeat(60), 4))).toEqual(['250', '250', '250', '552']);
    expect(codes(await client.send('MAIL FROM:<a@b.test>\r\nRCPT TO:<x@example.test>\r\nDATA\r\nsmall\r\n.\r\n', 4))).toEqual(['250', '250', '354', '250']);
    expect(policy.messages.map((stored) => stored.bytes)).toEqual(['small\r\n']);
  });

  it('authenticates with AUTH PLAIN and LOGIN, initial response or continuation; 535 on bad credentials, 503 for a second AUTH', async () => {
    const policy = new Recorder();
    policy.authenticate = (user, pass) => user === 'relay' && pass === 's3cret';
    const { connect } = await receiver({}, policy);
    const plainInitial = await greeted(connect);
    expect(await plainInitial.send(`AUTH PLAIN ${b64('\0relay\0wrong')}\r\n`)).toEqual(['535 5.7.8 authentication credentials invalid']);
    expect(await plainInitial.send(`AUTH PLAIN ${b64('\0relay\0s3cret')}\r\n`)).toEqual(['235 2.7.0 Authentication successful']);
    expect(codes(await plainInitial.send(`AUTH PLAIN ${b64('\0relay\0s3cret')}\r\nMAIL FROM:<agent@example.test>\r\n`, 2))).toEqual(['503', '250']);

    const plainLater = await greeted(connect);
    expect(await plainLater.send('AUTH PLAIN\r\n')).toEqual(['334 ']);
    expect(await plainLater.send(`${b64('relay\0relay\0s3cret')}\r\n`)).toEqual(['235 2.7.0 Authentication successful']);

    const login = await greeted(connect);
    expect(await login.send('AUTH LOGIN\r\n')).toEqual(['334 VXNlcm5hbWU6']);
    expect(await login.send(`${b64('relay')}\r\n`)).toEqual(['334 UGFzc3dvcmQ6']);
    expect(await login.send(`${b64('s3cret')}\r\n`)).toEqual(['235 2.7.0 Authentication successful']);

    const loginInitial = await greeted(connect);
    expect(await loginInitial.send(`AUTH LOGIN ${b64('relay')}\r\n`)).toEqual(['334 UGFzc3dvcmQ6']);
    expect(await loginInitial.send(`${b64('nope')}\r\n`)).toEqual(['535 5.7.8 authentication credentials invalid']);
    expect(await loginInitial.send('MAIL FROM:<agent@example.test>\r\n')).toEqual(['550 5.7.1 authenticate first']);

    const other = await greeted(connect);
    expect(codes(await other.send('AUTH CRAM-MD5\r\nAUTH LOGIN\r\n*\r\nAUTH PLAIN\r\n!!!\r\n', 5))).toEqual(['504', '334', '501', '334', '501']);
  });

  it('answers 500 5.5.2 to a command line over 4096 bytes, in one write or many, and reads the next command', async () => {
    const { connect } = await receiver();
    const client = await greeted(connect);
    expect(await client.send(`NOOP ${'x'.repeat(4091)}\r\n`)).toEqual(['250 2.0.0 OK']);
    expect(await client.send(`NOOP ${'x'.repeat(5000)}\r\nNOOP\r\n`, 2)).toEqual(['500 5.5.2 Line too long', '250 2.0.0 OK']);
    for (let i = 0; i < 5; i++) await client.write('x'.repeat(3000));
    expect(await client.send('\r\nNOOP\r\n', 2)).toEqual(['500 5.5.2 Line too long', '250 2.0.0 OK']);
  });

  it('answers 421 and closes after ten bad commands', async () => {
    const { connect } = await receiver();
    const client = await connect();
    await client.write('MAIL FROM:<a@b.test>\r\n' + 'BOGUS\r\n'.repeat(12));
    const replies = await client.closed();
    expect(codes(replies)).toEqual(['503', ...Array<string>(9).fill('500'), '421']);
    expect(replies.at(-1)).toBe('421 4.7.0 mx.example.test Too many errors, closing connection');
  });

  it('forgets the transaction at RSET, and refuses out-of-order and malformed commands', async () => {
    const { policy, connect } = await receiver({ maxRecipients: 2 });
    const client = await greeted(connect);
    const replies = await client.send(
      'MAIL FROM:<a@b.test>\r\nRCPT TO:<x@example.test>\r\nRSET\r\nDATA\r\nRCPT TO:<x@example.test>\r\nMAIL FROM:a@b.test\r\nMAIL FROM:<a@b.test> RET=FULL\r\nMAIL FROM:<nodomain>\r\nMAIL FROM:<a@b.test>\r\nMAIL FROM:<a@b.test>\r\nRCPT TO:<>\r\nRCPT TO:<x@example.test>\r\nRCPT TO:<y@example.test>\r\nRCPT TO:<z@example.test>\r\n',
      14,
    );
    expect(codes(replies)).toEqual(['250', '250', '250', '503', '503', '501', '555', '501', '250', '503', '501', '250', '250', '452']);
    expect(codes(await client.send('DATA\r\none\r\n.\r\n', 2))).toEqual(['354', '250']);
    expect(policy.messages[0]!.envelope.recipients).toEqual(['x@example.test', 'y@example.test']);
    const fresh = await connect();
    expect(codes(await fresh.send('MAIL FROM:<a@b.test>\r\nEHLO\r\n', 2))).toEqual(['503', '501']);
  });

  it('answers 421 to a connection idle past idleSeconds and closes it', async () => {
    const { connect } = await receiver({ idleSeconds: 0.2 });
    const client = await greeted(connect);
    expect(await client.closed()).toEqual(['421 4.4.2 mx.example.test Idle too long, closing connection']);
  });

  it('close() stops listening, answers 421 to idle connections and ends one in the middle of a message', async () => {
    const { running, connect } = await receiver();
    const idle = await greeted(connect);
    const sending = await greeted(connect);
    await sending.send('MAIL FROM:<a@b.test>\r\nRCPT TO:<x@example.test>\r\nDATA\r\n', 3);
    await sending.write('half a message');
    await running.close();
    expect(await idle.closed()).toEqual(['421 4.3.2 mx.example.test Service shutting down, closing connection']);
    expect(await sending.closed()).toEqual([]);
    await expect(openRaw(running.port)).rejects.toThrow();
  });
});
