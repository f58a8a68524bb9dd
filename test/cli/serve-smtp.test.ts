import { spawn, type ChildProcess } from 'node:child_process';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, ensureBuilt } from './ensure-built.js';
import { openSmtp } from '../providers/mail/smtp-client.js';
import { exitOf } from '../support/child-exit.js';

const children: ChildProcess[] = [];

beforeAll(async () => {
  await ensureBuilt();
}, 120_000);

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Starts `agent-services serve` and waits for the lines matching `ready`. */
async function start(args: string[], ready: RegExp): Promise<{ child: ChildProcess; stdout: () => string; closed: Promise<number | null> }> {
  const child = spawn(process.execPath, [CLI, 'serve', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const check = () => ready.test(stdout) && resolve();
    child.stdout!.on('data', check);
    void closed.then((code) => reject(new Error(`serve exited (${code}):\n${stdout}${stderr}`)));
  });
  return { child, stdout: () => stdout, closed };
}

describe('agent-services serve --smtp-port', () => {
  it('prints "smtp listening on HOST:PORT" and delivers mail sent there into the agent inbox read over HTTP', async () => {
    const server = await start(['--port', '0', '--smtp-port', '0', '--seed', '1'], /smtp listening on .*\n/);
    const lines = server.stdout().split('\n');
    expect(lines[0]).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    const url = lines[0]!.slice('listening on '.length);
    const smtpLine = lines.find((line) => line.startsWith('smtp listening on '))!;
    expect(smtpLine).toMatch(/^smtp listening on 127\.0\.0\.1:[1-9]\d*$/);
    const smtpPort = Number(smtpLine.split(':').pop());

    const created = (await (await fetch(`${url}/_sim/agents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bob' }) })).json()) as { api_key: string };
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
    await transport.sendMail({ from: 'zoe@example.com', to: 'bob@agents.test', subject: 'via the CLI', text: 'hello' });
    transport.close();
    await expect(transport.sendMail({ from: 'zoe@example.com', to: 'ghost@agents.test', subject: 'x', text: 'y' })).rejects.toMatchObject({ responseCode: 550 });

    const listing = (await (await fetch(`${url}/v1/email/messages`, { headers: { authorization: `Bearer ${created.api_key}` } })).json()) as { messages: Array<{ subject: string }> };
    expect(listing.messages.map((message) => message.subject)).toEqual(['via the CLI']);

    server.child.kill('SIGTERM');
    expect(await server.closed).toBe(0);
    await expect(openSmtp(smtpPort)).rejects.toThrow();
  });

  it('refuses an --smtp-port that is not a port', async () => {
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--smtp-port', 'abc'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await exitOf(child);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/--smtp-port/);
  });
});
