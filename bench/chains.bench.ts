/**
 * `npm run bench -- chains [--blocks N] [--sends N]`: the real-chain paths on a local Hardhat EDR
 * chain (base).
 *
 * 1. Inbound: blocks per second the poller scans (usdc Transfer logs with one `getLogs` per range,
 *    native ETH by block, each receiver looked up in the custody address index) with 10 and with
 *    10,000 agents' addresses indexed; every block carries a few deposits. The ratio shows whether
 *    the work per block grows with the number of agents (it should stay near 1).
 * 2. Outbound: sends per second through the service (validation, debit, store-allocated nonce,
 *    signing, raw bytes stored, broadcast after the commit) against viem signing and broadcasting
 *    the same transfers directly, the floor.
 */
import { performance } from 'node:perf_hooks';
import { createPublicClient, custom, encodeFunctionData, keccak256, toHex, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createRuntime } from '../src/index.js';
import { MemoryStore } from '../src/providers/store/memory-store.js';
import { EvmNetwork } from '../src/providers/chains/evm/evm-network.js';
import { EvmWatcher } from '../src/providers/chains/evm/evm-watcher.js';
import { USDC_ABI } from '../src/providers/chains/evm/usdc-artifact.js';
import { HdCustodyKeys } from '../src/providers/custody/hd-custody-keys.js';
import { CUSTODY_ADDRESSES, CustodyService } from '../src/core/wallet/custody.service.js';
import { resolveChains } from '../src/core/wallet/chain-config.js';
import { resolveFees } from '../src/core/wallet/fees.js';
import { DEFAULT_BILLING_ADDRESS } from '../src/core/wallet/wallet-config.js';
import type { DepositService } from '../src/core/wallet/deposit.service.js';
import type { Clock } from '../src/core/ports/clock.js';

const MNEMONIC = 'test test test test test test test test test test test junk';
const START = Date.UTC(2026, 0, 1);

function option(args: string[], name: string, fallback: number): number {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
}

/** Blocks per second one poll scans from genesis to the head, with `agents` addresses indexed. */
async function scanRate(agents: number, blocks: number): Promise<{ rate: number; found: number }> {
  const keys = new HdCustodyKeys(MNEMONIC);
  const network = new EvmNetwork({ network: 'base', connection: { kind: 'local', nowMs: START, blockMs: 2000 }, usdc: null, confirmations: 1, hot: keys.evmAccount(0) });
  await network.ready;
  const store = new MemoryStore();
  // The index as agent creation writes it; receivers are a handful of derived addresses, the rest random.
  const receivers = [1, 2, 3, 4].map((index) => keys.addresses(index).evm as Hex);
  await store.transaction(async (tx) => {
    for (let i = 0; i < agents; i++) {
      const address = i < receivers.length ? receivers[i]! : keccak256(toHex(`agent ${i}`)).slice(0, 42);
      await tx.insert(CUSTODY_ADDRESSES, `evm:${address.toLowerCase()}`, { agent_id: `agt_${i}`, index: i + 1 });
    }
  });
  const config = { fees: resolveFees(), cardBillingAddress: DEFAULT_BILLING_ADDRESS, chains: resolveChains({ chains: { base: 'local' } }) };
  const custody = new CustodyService(store, keys, config);
  let found = 0;
  const deposits = { observe: async () => ((found += 1), true), pending: async () => [], settle: async () => undefined } as unknown as DepositService;
  let now = START;
  const clock: Clock = { now: () => now, setTimer: () => ({ cancel() {} }) };
  for (let block = 0; block < blocks; block++) {
    await network.faucetDeposit('usdc', 1_000_000n, receivers[block % 4]!);
    await network.faucetDeposit('usdc', 2_000_000n, receivers[(block + 1) % 4]!);
    await network.faucetDeposit('eth', 10n ** 15n, receivers[(block + 2) % 4]!);
    now += 2000;
    await network.catchUp(now);
  }
  const watcher = new EvmWatcher(network, store, clock, custody, deposits);
  const begin = performance.now();
  const scanned = await watcher.poll();
  const seconds = (performance.now() - begin) / 1000;
  await network.close();
  return { rate: scanned / seconds, found };
}

/** Sends per second through the service, and viem sending the same transfers directly. */
async function sendRates(sends: number): Promise<{ service: number; floor: number }> {
  const runtime = await createRuntime({ seed: 1, wallet: { custodyMnemonic: MNEMONIC, chains: { base: 'local' } } });
  const sim = runtime.simClient();
  const created = await sim.createAgent({ name: 'bench' });
  const agent = runtime.agent(created.api_key);
  await sim.chainDeposit({ network: 'base', asset: 'usdc', amount: '1000000', to: 'bench' });
  for (let i = 0; i < 100 && (await agent.wallet.getBalance()).crypto.usdc === '0.000000'; i++) {
    await sim.advanceClock({ seconds: 2 });
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const target = '0x000000000000000000000000000000000000dEaD';
  let begin = performance.now();
  for (let i = 0; i < sends; i++) await agent.wallet.send({ to: target, amount: '0.01', asset: 'usdc', network: 'base' });
  const service = sends / ((performance.now() - begin) / 1000);
  await runtime.close();

  const keys = new HdCustodyKeys(MNEMONIC);
  const network = new EvmNetwork({ network: 'base', connection: { kind: 'local', nowMs: START, blockMs: 2000 }, usdc: null, confirmations: 1, hot: keys.evmAccount(0) });
  await network.ready;
  const provider = network.localProvider!;
  const reader = createPublicClient({ transport: custom(provider) });
  const hot = privateKeyToAccount(toHex(keys.evmAccount(0).getHdKey().privateKey!));
  const chainId = await reader.getChainId();
  let nonce = await reader.getTransactionCount({ address: hot.address, blockTag: 'pending' });
  begin = performance.now();
  for (let i = 0; i < sends; i++) {
    const raw = await hot.signTransaction({
      chainId,
      nonce: nonce++,
      type: 'eip1559',
      maxFeePerGas: 3_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
      gas: 100_000n,
      to: network.usdc,
      value: 0n,
      data: encodeFunctionData({ abi: USDC_ABI, functionName: 'transfer', args: [target, 10_000n] }),
    });
    await provider.request({ method: 'eth_sendRawTransaction', params: [raw] });
  }
  const floor = sends / ((performance.now() - begin) / 1000);
  await network.close();
  return { service, floor };
}

export async function run(args: string[]): Promise<void> {
  const blocks = option(args, 'blocks', 200);
  const sends = option(args, 'sends', 200);
  console.log(`chains: local base (Hardhat EDR, Node ${process.versions.node}), ${blocks} blocks with 3 deposits each; ${sends} usdc sends`);
  await scanRate(10, Math.min(blocks, 50)); // warm-up: the first chain pays for loading and JIT
  const small = await scanRate(10, blocks);
  const large = await scanRate(10_000, blocks);
  console.log(`inbound scan, 10 agents:      ${small.rate.toFixed(0)} blocks/s (${small.found} deposits found)`);
  console.log(`inbound scan, 10,000 agents:  ${large.rate.toFixed(0)} blocks/s (${large.found} deposits found)`);
  console.log(`ratio 10 / 10,000 agents:     ${(small.rate / large.rate).toFixed(2)} (1 = the work per block does not grow with agents)`);
  const rates = await sendRates(sends);
  console.log(`sends through the service:    ${rates.service.toFixed(0)} /s (each answered 201, signed, stored, broadcast after commit)`);
  console.log(`viem sending directly:        ${rates.floor.toFixed(0)} /s (the floor)`);
  console.log(`service / floor:              ${(rates.service / rates.floor).toFixed(2)}`);
}
