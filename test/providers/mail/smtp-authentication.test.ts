import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import nodemailer from 'nodemailer';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, serve, type AgentClient, type ListeningEdge, type Runtime, type RunningServer } from '../../../src/index.js';
import type { SmtpEdgeOptions } from '../../../src/core/email/email-config.js';
import { startDnsServer, type TestDnsServer } from '../../support/dns-server.js';
import { plainMessage, senderZone, signed } from './auth/fixtures.js';

/** A runtime whose SMTP listener checks senders against the test's own DNS server. */
async function world(dns: TestDnsServer, smtp: SmtpEdgeOptions = {}): Promise<{ runtime: Runtime; port: number; bob: AgentClient; bobKey: string }> {
  const runtime = await createRuntime({ seed: 3, email: { smtp: { port: 0, dnsServer: dns.address, ...smtp } } });
  const [edge] = (await runtime.listen()) as [ListeningEdge];
  const { api_key: bobKey } = await runtime.createAgent({ name: 'bob' });
  return { runtime, port: edge.port, bob: runtime.agent(bobKey), bobKey };
}

/** Hands `raw` to the listener on `port` with nodemailer, envelope `from` → bob. */
async function deliver(port: number, from: string, raw: Buffer): Promise<{ response: string }> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, name: 'mail.example.com' });
  try {
    return (await transport.sendMail({ envelope: { from, to: ['bob@agents.test'] }, raw })) as { response: string };
  } finally {
    transport.close();
  }
}

describe('SMTP listener: who sent each message (SPF, DKIM, DMARC)', () => {
  const closing: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });
  async function setUp(smtp: SmtpEdgeOptions = {}, dnsOptions: { silent?: boolean } = {}) {
    const dns = await startDnsServer(senderZone(), dnsOptions);
    closing.push(() => dns.close());
    const made = await world(dns, smtp);
    closing.push(() => made.runtime.close());
    return { dns, ...made };
  }
  const newest = async (bob: AgentClient) => bob.email.get((await bob.email.list()).messages[0]!.id);

  it('reads spf, dkim and dmarc pass for a DKIM-signed message from an address its SPF allows, and writes one Authentication-Results', async () => {
    const { port, bob } = await setUp();
    await deliver(port, 'boss@example.com', await signed(plainMessage('boss@example.com')));
    const message = await newest(bob);
    expect(message.authentication).toEqual({ spf: 'pass', dkim: [{ domain: 'example.com', selector: 'sel', result: 'pass' }], dmarc: 'pass', from_domain: 'example.com' });
    expect(message.headers['Authentication-Results']!.split('\n')).toHaveLength(1);
    expect(message.headers['Authentication-Results']).toMatch(/^agents\.test; dkim=pass .*spf=pass .*dmarc=pass /);
  });

  it('keeps a spoofed message and flags it dmarc fail', async () => {
    const { port, bob } = await setUp();
    const reply = await deliver(port, 'mallory@attacker.test', plainMessage('boss@example.com'));
    expect(reply.response).toMatch(/^250 /);
    const message = await newest(bob);
    expect(message.from).toBe('boss@example.com');
    expect(message.authentication).toEqual({ spf: 'pass', dkim: [], dmarc: 'fail', from_domain: 'example.com' });
    expect(message.headers['Authentication-Results']).toMatch(/dmarc=fail /);
  });

  it('with enforceDmarc refuses at the end of DATA with 550 5.7.1 a message failing a p=reject domain, and stores nothing', async () => {
    const { port, bob, dns } = await setUp({ enforceDmarc: true });
    const refused = await deliver(port, 'mallory@attacker.test', plainMessage('boss@example.com')).catch((error: { responseCode?: number; response?: string }) => error);
    expect(refused).toMatchObject({ responseCode: 550 });
    expect((refused as { response: string }).response).toMatch(/^550 5\.7\.1 /);
    expect((await bob.email.list()).messages).toEqual([]);
    // A message that passes is still taken, and so is a failing one whose domain asks only for quarantine.
    await deliver(port, 'boss@example.com', await signed(plainMessage('boss@example.com')));
    dns.zone['quarantine.example'] = { TXT: ['v=spf1 -all'] };
    dns.zone['_dmarc.quarantine.example'] = { TXT: ['v=DMARC1; p=quarantine'] };
    await deliver(port, 'mallory@attacker.test', plainMessage('ceo@quarantine.example'));
    const kept = await newest(bob);
    expect(kept.from).toBe('ceo@quarantine.example');
    expect(kept.authentication?.dmarc).toBe('fail');
    expect((await bob.email.list()).messages).toHaveLength(2);
  });

  it("never keeps an Authentication-Results header with its own authserv-id from the sender, and keeps other hosts' ones", async () => {
    const { port, bob } = await setUp();
    const forged = plainMessage('boss@example.com', [
      'Authentication-Results: agents.test; spf=pass smtp.mailfrom=boss@example.com; dkim=pass; dmarc=pass',
      'Authentication-Results: AGENTS.TEST (forged); dmarc=pass',
      'Authentication-Results: mx.elsewhere.example; spf=neutral',
    ]);
    await deliver(port, 'mallory@attacker.test', forged);
    const message = await newest(bob);
    const values = message.headers['Authentication-Results']!.split('\n');
    expect(values).toHaveLength(2);
    expect(values[0]).toMatch(/^agents\.test; dkim=none; spf=pass smtp\.mailfrom=mallory@attacker\.test smtp\.helo=mail\.example\.com; dmarc=fail /);
    expect(values[1]).toBe('mx.elsewhere.example; spf=neutral');
    expect(message.authentication?.dmarc).toBe('fail');
  });

  it('reads temperror when the DNS server never answers, and still delivers the message', async () => {
    const { port, bob, dns } = await setUp({ dnsTimeoutMs: 300 }, { silent: true });
    const reply = await deliver(port, 'boss@example.com', await signed(plainMessage('boss@example.com')));
    expect(reply.response).toMatch(/^250 /);
    const message = await newest(bob);
    expect(message.authentication).toEqual({ spf: 'temperror', dkim: [{ domain: 'example.com', selector: 'sel', result: 'temperror' }], dmarc: 'temperror', from_domain: 'example.com' });
    expect(dns.asked.length).toBeGreaterThan(0);
  });

  it('gives mail between agents spf and dmarc pass, and control-plane mail no verdict', async () => {
    const { runtime, bob } = await setUp();
    const alice = runtime.agent((await runtime.createAgent({ name: 'alice' })).api_key);
    const sent = await alice.email.send({ to: ['bob@agents.test'], subject: 'lunch?', text: 'at noon' });
    const internal = { spf: 'pass', dkim: [], dmarc: 'pass', from_domain: 'agents.test' };
    expect((await bob.email.get(sent.message_id)).authentication).toEqual(internal);
    expect((await alice.email.get(sent.message_id)).authentication).toEqual(internal);
    const simulated = await runtime.simClient().emailInbound({ to: 'bob@agents.test', from: 'boss@example.com', subject: 'sim', text: 'x', headers: { 'Authentication-Results': 'agents.test; dmarc=pass' } });
    const message = await bob.email.get(simulated.message_id);
    expect(message.authentication).toBeNull();
    expect(message.headers['Authentication-Results']).toBeUndefined();
  });

  it('answers the verdict through the MCP tool that reads a message, and shows it on the dashboard', async () => {
    const { runtime, port, bob, bobKey } = await setUp();
    await deliver(port, 'mallory@attacker.test', plainMessage('boss@example.com'));
    const id = (await bob.email.list()).messages[0]!.id;
    const http: RunningServer = await serve(runtime, { port: 0 });
    closing.push(() => http.close());
    const mcp = new Client({ name: 'test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${bobKey}` } } }));
    closing.push(() => mcp.close());
    const result = await mcp.callTool({ name: 'email_get', arguments: { id } });
    const [first] = result.content as Array<{ type: string; text: string }>;
    expect(JSON.parse(first!.text).authentication).toEqual({ spf: 'pass', dkim: [], dmarc: 'fail', from_domain: 'example.com' });
    const threads = await (await fetch(`${http.url}/_dashboard/agents/bob/mail`)).text();
    expect(threads).toContain('data-dmarc="fail"');
    expect(threads).toContain('DMARC fail: not from example.com');
    const thread = (await bob.email.get(id)).thread_id;
    const page = await (await fetch(`${http.url}/_dashboard/agents/bob/mail?thread=${thread}`)).text();
    expect(page).toContain('SPF pass, DKIM none, DMARC fail, From domain example.com');
  });
});
