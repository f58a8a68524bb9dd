import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, JsonFilePersistence, serve, type RunningServer, type Runtime } from '../../src/index.js';
import { exitOf } from '../support/child-exit.js';

/** Each test spawns a process that loads the sources through tsx: slow on a loaded machine, so a generous limit (not an assertion). */
const SPAWN_TEST = { timeout: 180_000 };
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'mcp-stdio-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Spawns `agent-services mcp ARGS` from the sources (node with tsx's loader) and connects the SDK's client to it. */
async function spawnMcp(args: string[]): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'mcp', ...args],
    cwd: ROOT,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  // The child compiles the sources on the fly before it answers `initialize`: a generous limit
  // for that first answer on a loaded machine (the SDK's default is 60 s).
  await client.connect(transport, { timeout: 150_000 });
  return { client, stderr: () => stderr };
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as Array<{ text: string }>)[0]!.text;
}

describe('agent-services mcp over stdio', () => {
  describe('with --base-url: a server started by the test', () => {
    let runtime: Runtime;
    let server: RunningServer;
    beforeAll(async () => {
      runtime = await createRuntime({ seed: 3 });
      server = await serve(runtime, { port: 0 });
    });
    afterAll(async () => {
      await server?.close();
      await runtime?.close();
    });

    it('lists the tools, moves money funded through the runtime, sends mail and answers API errors as tool errors', SPAWN_TEST, async () => {
      const alice = await runtime.createAgent({ name: 'alice' });
      const bob = await runtime.createAgent({ name: 'bob' });
      await runtime.simClient().fundWallet({ handle: 'alice', asset: 'usd', amount: '40' });
      const { client } = await spawnMcp(['--api-key', alice.api_key, '--base-url', server.url]);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['wallet_send', 'email_send', 'memory_search', 'identity_get_profile']));

        const sent = await client.callTool({ name: 'wallet_send', arguments: { to: 'bob.agents.test', amount: '15', asset: 'usd' } });
        expect(sent.structuredContent).toMatchObject({ status: 'confirmed' });
        expect((await runtime.agent(bob.api_key).wallet.getBalance()).fiat.usd).toBe('15.00');

        const mail = await client.callTool({ name: 'email_send', arguments: { to: ['bob@agents.test'], subject: 'Invoice', text: 'paid' } });
        expect(mail.isError).toBeFalsy();
        const inbox = await runtime.agent(bob.api_key).email.list();
        expect(inbox.messages.map((message) => message.subject)).toEqual(['Invoice']);

        const refused = await client.callTool({ name: 'wallet_send', arguments: { to: 'bob', amount: '100', asset: 'usd' } });
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toMatch(/^insufficient_funds: /);
      } finally {
        await client.close();
      }
    });
  });

  it('without --base-url: acts on the world of a --data file and saves its changes there', SPAWN_TEST, async () => {
    const file = path.join(dir, 'world.json');
    const setup = await createRuntime({ seed: 5, persistence: new JsonFilePersistence(file) });
    const alice = await setup.createAgent({ name: 'alice', balances: { usd: '30' } });
    const bob = await setup.createAgent({ name: 'bob' });
    await setup.close();

    const { client } = await spawnMcp(['--api-key', alice.api_key, '--data', file, '--seed', '5']);
    try {
      const sent = await client.callTool({ name: 'wallet_send', arguments: { to: 'bob', amount: '7.25', asset: 'usd' } });
      expect(sent.structuredContent).toMatchObject({ status: 'confirmed' });
      const balance = await client.callTool({ name: 'wallet_get_balance', arguments: {} });
      expect(balance.structuredContent).toMatchObject({ fiat: { usd: '22.75' } });
    } finally {
      await client.close();
    }
    const reloaded = await createRuntime({ seed: 5, persistence: new JsonFilePersistence(file) });
    try {
      expect((await reloaded.agent(bob.api_key).wallet.getBalance()).fiat.usd).toBe('7.25');
    } finally {
      await reloaded.close();
    }
  });

  it('with --api-key in a fresh world: the key of the demo agent "serve --demo" makes with that seed', SPAWN_TEST, async () => {
    // The same seed and the same creation as serve --demo: the key it prints.
    const twin = await createRuntime({ seed: 4 });
    const demo = await twin.createAgent({ name: 'demo', display_name: 'Demo Agent' });
    await twin.close();
    const { client } = await spawnMcp(['--api-key', demo.api_key, '--seed', '4']);
    try {
      const profile = await client.callTool({ name: 'identity_get_profile', arguments: {} });
      expect(profile.structuredContent).toMatchObject({ handle: 'demo.agents.test', display_name: 'Demo Agent' });
    } finally {
      await client.close();
    }
  });

  it('without --api-key in a fresh world: creates the --agent with its --balance and acts as it', SPAWN_TEST, async () => {
    const { client, stderr } = await spawnMcp(['--agent', 'scout', '--balance', 'usdc=12']);
    try {
      const profile = await client.callTool({ name: 'identity_get_profile', arguments: {} });
      expect(profile.structuredContent).toMatchObject({ handle: 'scout.agents.test' });
      const balance = await client.callTool({ name: 'wallet_get_balance', arguments: {} });
      expect(balance.structuredContent).toMatchObject({ crypto: { usdc: '12.000000' } });
      expect(stderr()).toMatch(/acting as agent scout \(API key sk_\S+\)/);
    } finally {
      await client.close();
    }
  });

  it('exits 1 with the reason on stderr for a key the world does not know, writing nothing to stdout', SPAWN_TEST, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'mcp', '--api-key', 'sk_unknown'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await exitOf(child);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^agent-services: unknown API key in a fresh world/m);
    expect(stdout).toBe('');
  });
});
