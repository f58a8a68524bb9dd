import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_ROUTE_TABLES, createRuntime, serve, type RunningServer, type Runtime } from '../../src/index.js';

let runtime: Runtime;
let server: RunningServer;
let alice: { api_key: string; agent_id: string };
let bobKey: string;
let mcp: Client;

/** An MCP client of the server's `/mcp` endpoint acting with `apiKey`. */
async function connectMcp(apiKey: string): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${apiKey}` } } }));
  return client;
}

/** Text of a tool result's first content item. */
function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const [first] = result.content as Array<{ type: string; text: string }>;
  return first!.text;
}

beforeAll(async () => {
  runtime = await createRuntime({ seed: 7 });
  alice = await runtime.createAgent({ name: 'alice', balances: { usd: '100' } });
  bobKey = (await runtime.createAgent({ name: 'bob' })).api_key;
  server = await serve(runtime, { port: 0 });
  mcp = await connectMcp(alice.api_key);
});

afterAll(async () => {
  await mcp?.close();
  await server?.close();
  await runtime?.close();
});

describe('MCP over Streamable HTTP at /mcp', () => {
  it('lists one tool per agent and public route, named from the route id, and none of the control plane', async () => {
    const { tools } = await mcp.listTools();
    const names = tools.map((tool) => tool.name);
    const routes = Object.values(AGENT_ROUTE_TABLES)
      .flatMap((table) => Object.values(table))
      .filter((route) => route.auth !== 'admin');
    expect(names).toHaveLength(routes.length);
    expect(names).toEqual(expect.arrayContaining(['wallet_send', 'email_send', 'memory_search', 'identity_get_profile', 'identity_get_public_profile', 'wallet_list_transactions']));
    expect(names.filter((name) => name.startsWith('sim'))).toEqual([]);
    const send = tools.find((tool) => tool.name === 'wallet_send')!;
    expect(send.description).toContain(AGENT_ROUTE_TABLES.wallet.send.summary);
    expect(send.inputSchema.required).toEqual(['to', 'amount', 'asset']);
    expect(Object.keys(send.inputSchema.properties ?? {})).toEqual(['to', 'amount', 'asset', 'network', 'memo']);
    // Path and body fields side by side.
    const reply = tools.find((tool) => tool.name === 'email_reply')!;
    expect(Object.keys(reply.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['id', 'text', 'html']));
    expect(reply.inputSchema.required).toContain('id');
  });

  it('moves money: wallet_send answers the API JSON as text and structured content, and the recipient is paid', async () => {
    await runtime.simClient().fundWallet({ handle: 'alice', asset: 'usdc', amount: '5' });
    const result = await mcp.callTool({ name: 'wallet_send', arguments: { to: 'bob', amount: '12.50', asset: 'usd', memo: 'lunch' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 'confirmed', fee: { amount: '0.00', asset: 'usd' } });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    const balance = await mcp.callTool({ name: 'wallet_get_balance', arguments: {} });
    expect(balance.structuredContent).toMatchObject({ fiat: { usd: '87.50' }, crypto: { usdc: '5.000000' } });
    const id = (result.structuredContent as { transaction_id: string }).transaction_id;
    const record = await mcp.callTool({ name: 'wallet_get_transaction', arguments: { transaction_id: id } });
    expect(record.structuredContent).toMatchObject({ id, direction: 'out', amount: '12.50', memo: 'lunch' });
    const bob = await runtime.agent(bobKey).wallet.getBalance();
    expect(bob.fiat.usd).toBe('12.50');
  });

  it('sends mail: email_send delivers into the other agent inbox', async () => {
    const carol = await runtime.createAgent({ name: 'carol' });
    const result = await mcp.callTool({ name: 'email_send', arguments: { to: ['carol@agents.test'], subject: 'Hello', text: 'from MCP' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toHaveProperty('message_id');
    const inbox = await runtime.agent(carol.api_key).email.list();
    expect(inbox.messages.map((message) => message.subject)).toContain('Hello');
  });

  it('answers an API error as a tool error holding the code and message', async () => {
    const broke = await mcp.callTool({ name: 'wallet_send', arguments: { to: 'bob', amount: '1000000', asset: 'usd' } });
    expect(broke.isError).toBe(true);
    expect(textOf(broke)).toMatch(/^insufficient_funds: .+/);
    expect(broke.structuredContent).toMatchObject({ error: { code: 'insufficient_funds' } });
    const invalid = await mcp.callTool({ name: 'wallet_send', arguments: { to: 'bob', amount: '-1', asset: 'usd' } });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toMatch(/^invalid_amount: /);
    const unknownField = await mcp.callTool({ name: 'wallet_send', arguments: { to: 'bob', amount: '1', asset: 'usd', colour: 'red' } });
    expect(textOf(unknownField)).toMatch(/^invalid_request: /);
    const missing = await mcp.callTool({ name: 'wallet_get_transaction', arguments: { transaction_id: 'tx_nope' } });
    expect(textOf(missing)).toMatch(/^not_found: /);
  });

  it('uploads and downloads files as Base64 and answers {} for a delete', async () => {
    const text = 'The launch code is tangerine.\n';
    const uploaded = await mcp.callTool({
      name: 'memory_upload_file',
      arguments: { filename: 'notes.txt', content_type: 'text/plain', content_base64: Buffer.from(text).toString('base64') },
    });
    expect(uploaded.isError).toBeFalsy();
    expect(uploaded.structuredContent).toMatchObject({ name: 'notes.txt', size: Buffer.byteLength(text) });
    const fileId = (uploaded.structuredContent as { file_id: string }).file_id;
    const downloaded = await mcp.callTool({ name: 'memory_download_file', arguments: { file_id: fileId } });
    expect(downloaded.structuredContent).toMatchObject({ filename: 'notes.txt', size: Buffer.byteLength(text) });
    expect(Buffer.from((downloaded.structuredContent as { content_base64: string }).content_base64, 'base64').toString()).toBe(text);
    const badUpload = await mcp.callTool({ name: 'memory_upload_file', arguments: { filename: 'x.txt', content_base64: 'not base64!' } });
    expect(textOf(badUpload)).toMatch(/^invalid_request: content_base64/);

    const memory = await mcp.callTool({ name: 'memory_create', arguments: { content: 'Bob likes tea', metadata: { topic: 'people' } } });
    const deleted = await mcp.callTool({ name: 'memory_delete', arguments: { id: (memory.structuredContent as { memory_id: string }).memory_id } });
    expect(deleted.isError).toBeFalsy();
    expect(deleted.structuredContent).toEqual({});
  });

  it('refuses a missing or unknown API key with 401 before any MCP exchange', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    const post = (headers: Record<string, string>) =>
      fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(init) });
    const none = await post({});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await none.json()).toMatchObject({ error: { code: 'unauthorized' } });
    const wrong = await post({ authorization: 'Bearer sk_wrong' });
    expect(wrong.status).toBe(401);
    await expect(connectMcp('sk_wrong')).rejects.toThrow();
  });

  it('is stateless: GET (a standalone event stream) and DELETE (a session) answer 405 with Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${server.url}/mcp`, { method, headers: { authorization: `Bearer ${alice.api_key}`, accept: 'text/event-stream' } });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect(await response.json()).toMatchObject({ error: { code: 'method_not_allowed' } });
    }
  });

  it('acts as the key owner: another agent sees its own profile', async () => {
    const dave = await runtime.createAgent({ name: 'dave', display_name: 'Dave' });
    const client = await connectMcp(dave.api_key);
    try {
      const profile = await client.callTool({ name: 'identity_get_profile', arguments: {} });
      expect(profile.structuredContent).toMatchObject({ handle: 'dave.agents.test', display_name: 'Dave' });
    } finally {
      await client.close();
    }
  });
});
