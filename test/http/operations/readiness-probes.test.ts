import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../../src/index.js';
import { BubblewrapSandbox, bubblewrapUnavailable } from '../../../src/providers/sandbox/bubblewrap-sandbox.js';

const MNEMONIC = 'test test test test test test test test test test test junk';
const dir = mkdtempSync(path.join(os.tmpdir(), 'readiness-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `GET /readyz` of a runtime: its status and body. */
async function readyz(runtime: Runtime): Promise<{ status: number; body: unknown }> {
  const answer = await runtime.fetch(new Request('http://x/readyz'));
  return { status: answer.status, body: await answer.json() };
}

/** A JSON-RPC endpoint answering every question with a block number, and the methods it was asked. */
async function rpcEndpoint(): Promise<{ server: Server; url: string; asked: string[] }> {
  const asked: string[] = [];
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const call = JSON.parse(text) as { id: number; method: string };
      asked.push(call.method);
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: '0x10' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked };
}

describe('/readyz probes the sandbox, Chromium and chains where they are configured', () => {
  let runtime: Runtime | undefined;
  afterEach(async () => {
    await runtime?.close();
    runtime = undefined;
  });

  it('names a chain whose JSON-RPC endpoint cannot be reached (a closed port)', async () => {
    // Port 1 on the loopback: nothing listens there, the connection is refused at once.
    runtime = await createRuntime({ seed: 1, wallet: { custodyMnemonic: MNEMONIC, chains: { base: 'http://127.0.0.1:1' } }, onNotice: () => {} });
    expect(await readyz(runtime)).toEqual({ status: 503, body: { status: 'unready', failing: ['chain_base'] } });
  });

  it('counts a chain whose endpoint answers its block number as ready', async () => {
    const rpc = await rpcEndpoint();
    try {
      runtime = await createRuntime({ seed: 1, wallet: { custodyMnemonic: MNEMONIC, chains: { ethereum: rpc.url } }, onNotice: () => {} });
      expect(await readyz(runtime)).toEqual({ status: 200, body: { status: 'ready' } });
      expect(rpc.asked).toContain('eth_blockNumber');
    } finally {
      await runtime?.close();
      runtime = undefined;
      rpc.server.closeAllConnections();
      await new Promise((resolve) => rpc.server.close(resolve));
    }
  });

  it('names the browser once its Chromium executable is gone', async () => {
    // A stand-in for the binary: the probe asks for its version, as of a real Chromium.
    const chromium = path.join(dir, 'chromium');
    writeFileSync(chromium, '#!/bin/sh\necho "Chromium 150.0"\n');
    chmodSync(chromium, 0o755);
    runtime = await createRuntime({ seed: 1, browser: { provider: 'chromium', chromiumPath: chromium } });
    expect(await readyz(runtime)).toEqual({ status: 200, body: { status: 'ready' } });
    rmSync(chromium);
    expect(await readyz(runtime)).toEqual({ status: 503, body: { status: 'unready', failing: ['browser'] } });
  });

  it('names a bubblewrap sandbox whose bwrap cannot run', async () => {
    runtime = await createRuntime({ seed: 1, providers: { sandbox: new BubblewrapSandbox({ bwrap: path.join(dir, 'no-such-bwrap') }) } });
    expect(await readyz(runtime)).toEqual({ status: 503, body: { status: 'unready', failing: ['sandbox'] } });
  });

  it.skipIf(bubblewrapUnavailable() !== undefined)('counts a bubblewrap sandbox that starts runs as ready', async () => {
    runtime = await createRuntime({ seed: 1, compute: { sandbox: 'bubblewrap' } });
    expect(await readyz(runtime)).toEqual({ status: 200, body: { status: 'ready' } });
  });

  it('shares one run of the checks among requests that come while it runs', async () => {
    const rpc = await rpcEndpoint();
    try {
      runtime = await createRuntime({ seed: 1, wallet: { custodyMnemonic: MNEMONIC, chains: { ethereum: rpc.url } }, onNotice: () => {} });
      const before = rpc.asked.filter((method) => method === 'eth_blockNumber').length;
      const answers = await Promise.all(Array.from({ length: 5 }, () => readyz(runtime!)));
      for (const answer of answers) expect(answer.status).toBe(200);
      const probes = rpc.asked.filter((method) => method === 'eth_blockNumber').length - before;
      // The chain's own poller may ask too; five separate runs would ask at least five times.
      expect(probes).toBeLessThan(5);
    } finally {
      await runtime?.close();
      runtime = undefined;
      rpc.server.closeAllConnections();
      await new Promise((resolve) => rpc.server.close(resolve));
    }
  });
});
