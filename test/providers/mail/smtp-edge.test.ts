import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, type ListeningEdge, type Runtime } from '../../../src/index.js';
import { dataOf, openSmtp } from './smtp-client.js';

const MESSAGE = (subject: string) => `From: zoe@example.com\r\nTo: bob@agents.test\r\nSubject: ${subject}\r\n\r\nbody\r\n`;

describe('the SMTP listener edge', () => {
  const worlds: Runtime[] = [];
  afterEach(async () => {
    for (const world of worlds.splice(0)) await world.close();
  });

  async function listening(smtp: NonNullable<NonNullable<Parameters<typeof createRuntime>[0]>['email']>['smtp']): Promise<{ runtime: Runtime; port: number }> {
    const runtime = await createRuntime({ seed: 2, email: { smtp: { port: 0, ...smtp } } });
    worlds.push(runtime);
    for (const name of ['bob', 'carol']) await runtime.createAgent({ name });
    const [edge] = (await runtime.listen()) as [ListeningEdge];
    expect(edge).toMatchObject({ name: 'smtp', host: '127.0.0.1' });
    return { runtime, port: edge.port };
  }

  const inboxCount = async (runtime: Runtime, agentName: string) => {
    const id = await agentId(runtime, agentName);
    return (await runtime.sim.events(0, 1000)).events.filter((event) => event.type === 'email.received' && event.agent_id === id).length;
  };
  const agentId = async (runtime: Runtime, name: string) =>
    ((await runtime.sim.snapshot()).store.collections.agents?.rows ?? []).map((row) => row[3] as { agent_id: string; name?: string; handle?: string }).find((agent) => agent.handle === name || agent.name === name)
      ?.agent_id;

  it('offers no AUTH without credentials, and refuses MAIL FROM the service domain from an unauthenticated session with 550 5.7.1', async () => {
    const { port } = await listening({});
    const session = await openSmtp(port);
    try {
      const ehlo = await session.command('EHLO client.example.com');
      expect(ehlo).not.toMatch(/AUTH/);
      expect(await session.command('AUTH PLAIN AGJvYgBzZWNyZXQ=')).toMatch(/^5\d\d /);
      expect(await session.command('MAIL FROM:<bob@agents.test>')).toMatch(/^550 5\.7\.1 /);
      expect(await session.command('MAIL FROM:<Carol+x@AGENTS.TEST>')).toMatch(/^550 5\.7\.1 /);
      expect(await session.command('MAIL FROM:<x@mail.agents.test>')).toMatch(/^550 5\.7\.1 /);
      // An outside sender and the null sender of bounces are welcome.
      expect(await session.command('MAIL FROM:<>')).toMatch(/^250 /);
      expect(await session.command('RSET')).toMatch(/^250 /);
      expect(await session.command('MAIL FROM:<zoe@example.com>')).toMatch(/^250 /);
    } finally {
      session.close();
    }
  });

  it('offers AUTH PLAIN and LOGIN with credentials; a wrong password is 535, and an authenticated session may use an agent address', async () => {
    const { runtime, port } = await listening({ auth: { user: 'relay', pass: 's3cret' } });
    const session = await openSmtp(port);
    try {
      expect(await session.command('EHLO client.example.com')).toMatch(/AUTH PLAIN LOGIN/);
      expect(await session.command('MAIL FROM:<bob@agents.test>')).toMatch(/^550 5\.7\.1 /);
      expect(await session.command(`AUTH PLAIN ${Buffer.from('\0relay\0wrong').toString('base64')}`)).toMatch(/^535 /);
      expect(await session.command(`AUTH PLAIN ${Buffer.from('\0relay\0s3cret').toString('base64')}`)).toMatch(/^235 /);
      expect(await session.command('MAIL FROM:<bob@agents.test>')).toMatch(/^250 /);
      expect(await session.command('RCPT TO:<carol@agents.test>')).toMatch(/^250 /);
      expect(await session.command('DATA')).toMatch(/^354 /);
      expect(await session.data(dataOf('From: bob@agents.test\r\nTo: carol@agents.test\r\nSubject: hi\r\n\r\nfrom bob\r\n'))).toMatch(/^250 /);
    } finally {
      session.close();
    }
    expect(await inboxCount(runtime, 'carol')).toBe(1);
  });

  it('announces PIPELINING, 8BITMIME, SMTPUTF8 and CHUNKING and answers a pipelined transaction in order', async () => {
    const { runtime, port } = await listening({});
    const session = await openSmtp(port);
    try {
      const ehlo = await session.command('EHLO client.example.com');
      expect(ehlo).toMatch(/250-PIPELINING/);
      expect(ehlo).toMatch(/250-8BITMIME/);
      expect(ehlo).toMatch(/SMTPUTF8/);
      expect(ehlo).toMatch(/250-CHUNKING/);
    } finally {
      session.close();
    }
    // MAIL, RCPT, RCPT and DATA in one write, then the 8-bit UTF-8 message in another.
    const replies = await new Promise<string>((resolve, reject) => {
      const socket = net.connect({ port, host: '127.0.0.1' });
      let buffer = '';
      let stage = 0;
      socket.on('error', reject);
      socket.on('data', (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        if (stage === 0 && buffer.includes('\r\n')) {
          stage = 1;
          buffer = '';
          socket.write('EHLO client.example.com\r\nMAIL FROM:<zoë@exämple.com> SMTPUTF8 BODY=8BITMIME\r\nRCPT TO:<bob@agents.test>\r\nRCPT TO:<nobody@agents.test>\r\nRCPT TO:<carol@agents.test>\r\nDATA\r\n');
        } else if (stage === 1 && /^354 /m.test(buffer)) {
          stage = 2;
          socket.write(
            dataOf('From: zoë@exämple.com\r\nTo: bob@agents.test, carol@agents.test\r\nSubject: Grüße\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\nSchöne Grüße ☕\r\n'),
          );
        } else if (stage === 2 && /^250 .*queued as/m.test(buffer)) {
          socket.end('QUIT\r\n');
          resolve(buffer);
        }
      });
    });
    const codes = replies
      .split('\r\n')
      .filter((line) => /^\d{3} /.test(line))
      .map((line) => line.slice(0, 3));
    expect(codes).toEqual(['250', '250', '250', '550', '250', '354', '250']);
    const received = (await runtime.sim.events(0, 1000)).events.filter((event) => event.type === 'email.received');
    expect(received.map((event) => event.data.subject)).toEqual(['Grüße', 'Grüße']);
    expect(received[0]!.data.from).toBe('zoë@exämple.com');
  });

  it('stores one message per agent however many of its addresses a transaction names', async () => {
    const { runtime, port } = await listening({});
    const session = await openSmtp(port);
    try {
      await session.command('EHLO client.example.com');
      await session.command('MAIL FROM:<zoe@example.com>');
      for (const rcpt of ['bob@agents.test', 'Bob+news@agents.test', 'carol@agents.test', 'BOB@agents.test']) expect(await session.command(`RCPT TO:<${rcpt}>`)).toMatch(/^250 /);
      await session.command('DATA');
      expect(await session.data(dataOf(MESSAGE('many')))).toMatch(/^250 /);
    } finally {
      session.close();
    }
    expect(await inboxCount(runtime, 'bob')).toBe(1);
    expect(await inboxCount(runtime, 'carol')).toBe(1);
  });

  it('answers 451 4.7.1 past the per-connection message rate, and a new connection may send again', async () => {
    const { runtime, port } = await listening({ maxMessagesPerMinute: 2 });
    const session = await openSmtp(port);
    try {
      await session.command('EHLO client.example.com');
      for (const n of [1, 2]) {
        expect(await session.command('MAIL FROM:<zoe@example.com>')).toMatch(/^250 /);
        await session.command('RCPT TO:<bob@agents.test>');
        await session.command('DATA');
        expect(await session.data(dataOf(MESSAGE(`m${n}`)))).toMatch(/^250 /);
      }
      expect(await session.command('MAIL FROM:<zoe@example.com>')).toMatch(/^451 4\.7\.1 /);
    } finally {
      session.close();
    }
    const other = await openSmtp(port);
    try {
      await other.command('EHLO client.example.com');
      expect(await other.command('MAIL FROM:<zoe@example.com>')).toMatch(/^250 /);
    } finally {
      other.close();
    }
    expect(await inboxCount(runtime, 'bob')).toBe(2);
  });

  it('is started once by runtime.listen() and closed by runtime.close()', async () => {
    const { runtime, port } = await listening({});
    expect((await runtime.listen())[0]!.port).toBe(port);
    await runtime.close();
    await expect(openSmtp(port)).rejects.toThrow();
  });

  it('is no edge at all without email.smtp', async () => {
    const runtime = await createRuntime({ seed: 2 });
    worlds.push(runtime);
    expect(await runtime.listen()).toEqual([]);
  });
});
