// A send whose process dies between the commit and the broadcast: the restarted server broadcasts
// the same signed bytes, and the chain sees exactly one transfer.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { HdCustodyKeys } from '../../../src/providers/custody/hd-custody-keys.js';
import { CLI_TEST_TIMEOUT_MS, kill, launch, waitForLine, type CliProcess } from '../../cli/cli-process.js';
import { ensureBuilt } from '../../cli/ensure-built.js';
import { freshDatabase, postgresSkipReason } from '../../support/postgres.js';
import { TEST_MNEMONIC } from './chain-world.js';
import { startEdrServer, type EdrServer } from './edr-server.js';

const keys = new HdCustodyKeys(TEST_MNEMONIC);
const TARGET = '0x000000000000000000000000000000000000bEEF' as Hex;

/** A JSON-RPC proxy in front of the node that can refuse every broadcast (the node "unreachable" for sends). */
function rpcProxy(upstream: string): { server: Server; url: Promise<string>; blockBroadcasts: boolean; broadcasts: number } {
  const state = {
    blockBroadcasts: true,
    broadcasts: 0,
    server: createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString();
      const calls = JSON.parse(body) as { method: string; id: number } | Array<{ method: string; id: number }>;
      const methods = (Array.isArray(calls) ? calls : [calls]).map((call) => call.method);
      if (methods.includes('eth_sendRawTransaction')) {
        state.broadcasts++;
        if (state.blockBroadcasts) {
          response.writeHead(503).end('unavailable');
          return;
        }
      }
      const answer = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
    }),
    url: Promise.resolve(''),
  };
  state.url = new Promise((resolve) => state.server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(state.server.address() as { port: number }).port}`)));
  return state;
}

/** Where the server keeps its world: a SQLite file (`--data`), and a PostgreSQL database (`--database`) where the run started a server. */
const STORES = postgresSkipReason() === null ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

describe.each(STORES)('SIGKILL between the commit of a send and its broadcast, world in %s', (store) => {
  let node: EdrServer;
  let dir: string;
  beforeAll(async () => {
    await ensureBuilt();
    node = await startEdrServer();
    await node.giveGas(keys.addresses(0).evm as Hex);
    await node.sendUsdc(keys.addresses(0).evm as Hex, 1_000_000_000n);
    dir = mkdtempSync(join(tmpdir(), 'chain-crash-'));
  }, CLI_TEST_TIMEOUT_MS);
  afterAll(async () => {
    await node?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'broadcasts the same bytes after the restart: one transfer on chain, confirmed once',
    async (t) => {
      const proxy = rpcProxy(node.url);
      const mnemonicFile = join(dir, 'mnemonic.txt');
      writeFileSync(mnemonicFile, TEST_MNEMONIC);
      const args = [
        'serve',
        '--port',
        '0',
        ...(store === 'sqlite' ? ['--data', join(dir, 'world.db')] : ['--database', await freshDatabase()]),
        '--chain',
        `ethereum=${await proxy.url}`,
        '--usdc',
        `ethereum=${node.usdc}`,
        '--confirmations',
        'ethereum=1',
        '--custody-mnemonic-file',
        mnemonicFile,
      ];
      const start = async (): Promise<{ run: CliProcess; url: string }> => {
        const run = launch(t, args);
        await waitForLine(run, /^listening on /m, 'serve');
        return { run, url: /^listening on (\S+)$/m.exec(run.stdout())![1]! };
      };
      const call = async (url: string, method: string, path: string, body?: unknown, key?: string) => {
        const response = await fetch(url + path, {
          method,
          headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(key ? { authorization: `Bearer ${key}` } : {}) },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        return { status: response.status, body: (await response.json().catch(() => null)) as Record<string, any> };
      };
      const eventually = async (check: () => Promise<boolean>, what: string) => {
        const until = Date.now() + 60_000;
        while (!(await check())) {
          if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      };

      let server = await start();
      await call(server.url, 'GET', '/_sim/chain/holdings?network=ethereum');
      const alice = (await call(server.url, 'POST', '/_sim/agents', { name: 'alice' })).body;
      const address = (await call(server.url, 'GET', '/v1/wallet/addresses', undefined, alice.api_key)).body.addresses[0].address as Hex;
      await node.sendUsdc(address, 10_000_000n);
      await eventually(async () => (await call(server.url, 'GET', '/v1/wallet/balance', undefined, alice.api_key)).body.crypto.usdc === '10.000000', 'the deposit');

      const sent = await call(server.url, 'POST', '/v1/wallet/send', { to: TARGET, amount: '4', asset: 'usdc', network: 'ethereum' }, alice.api_key);
      expect(sent.status).toBe(201);
      kill(server.run.child);
      await server.run.closed;
      expect(await node.usdcBalance(TARGET)).toBe(0n);

      proxy.blockBroadcasts = false;
      server = await start();
      await eventually(async () => (await node.usdcBalance(TARGET)) === 4_000_000n, 'the transfer on chain');
      await node.rpc('evm_mine');
      await eventually(async () => {
        await call(server.url, 'POST', '/_sim/clock/advance', { seconds: 12 });
        return (await call(server.url, 'GET', `/v1/wallet/transactions/${sent.body.transaction_id}`, undefined, alice.api_key)).body.status === 'confirmed';
      }, 'the send to confirm');
      expect(await node.usdcBalance(TARGET)).toBe(4_000_000n);
      expect((await call(server.url, 'GET', '/v1/wallet/balance', undefined, alice.api_key)).body.crypto.usdc).toBe('5.500000'); // 10 - 4 - the 0.50 ethereum usdc fee
      const holdings = (await call(server.url, 'GET', '/_sim/chain/holdings?network=ethereum')).body;
      expect(Number(holdings.holdings.usdc)).toBeGreaterThanOrEqual(Number(holdings.ledger.usdc));
      kill(server.run.child);
      proxy.server.close();
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
