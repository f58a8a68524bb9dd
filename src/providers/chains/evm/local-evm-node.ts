import { keccak256, toHex, type EIP1193Provider, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { USDC_ABI, USDC_BYTECODE } from './usdc-artifact.js';
import { createPublicClient, createWalletClient, custom, defineChain } from 'viem';

/** Chain ids of local chains: never a real network's, so nothing signed locally can be replayed on one. */
export const LOCAL_CHAIN_IDS = { ethereum: 31_337, base: 31_338 } as const;

/** The local faucet's key: public knowledge, it exists only on local chains. */
const FAUCET_KEY = keccak256(toHex('agent-services local faucet'));
/** What the faucet starts with: 10^9 ETH and 10^12 usdc. */
const FAUCET_ETH = 10n ** 27n;
const FAUCET_USDC = 10n ** 18n;
/** What the hot wallet starts with on a local chain, so sends work before any sweep: 10^6 ETH, 10^9 usdc. */
const HOT_ETH = 10n ** 24n;
const HOT_USDC = 10n ** 15n;

/** A real EVM chain inside the process (Hardhat's EDR), its usdc deployed, blocks made on the service clock. */
export interface LocalEvmNode {
  readonly provider: EIP1193Provider;
  readonly chainId: number;
  readonly usdc: Hex;
  readonly faucet: Hex;
  /** Mines the blocks due by `nowMs` (one every block time since start); serialised. */
  catchUp(nowMs: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a local chain with Hardhat 3's programmatic API (`network.create` on an `edr-simulated`
 * network; `op` chain type for base): no automining, the faucet funded in genesis, the usdc ERC-20
 * deployed and minted in block 1, the hot wallet given its float. Hardhat is imported here only,
 * so it loads only when a network runs `local`.
 */
export async function startLocalEvmNode(options: { network: 'ethereum' | 'base'; hotWallet: Hex; nowMs: number; blockMs: number }): Promise<LocalEvmNode> {
  const { createHardhatRuntimeEnvironment } = await import('hardhat/hre');
  const hre = await createHardhatRuntimeEnvironment({});
  const chainId = LOCAL_CHAIN_IDS[options.network];
  const connection = await hre.network.create({
    network: 'default',
    chainType: options.network === 'base' ? 'op' : 'l1',
    override: {
      type: 'edr-simulated',
      chainId,
      mining: { auto: false, interval: 0 },
      accounts: [{ privateKey: FAUCET_KEY, balance: FAUCET_ETH }],
      initialDate: new Date(options.nowMs),
      allowBlocksWithSameTimestamp: true,
      // EDR 0.22's op chain panics building a block after `hardhat_mine` made several at once
      // under Holocene (whose base-fee parameters live in each block's extra data); Granite,
      // the hardfork before it, mines the same transactions.
      ...(options.network === 'base' ? { hardfork: 'granite' } : {}),
    },
  } as never);
  const provider = connection.provider as unknown as EIP1193Provider;
  const faucet = privateKeyToAccount(FAUCET_KEY);
  const chain = defineChain({ id: chainId, name: `local ${options.network}`, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [] } } });
  const wallet = createWalletClient({ account: faucet, transport: custom(provider), chain });
  const reader = createPublicClient({ transport: custom(provider) });
  await provider.request({ method: 'hardhat_setBalance' as never, params: [options.hotWallet, toHex(HOT_ETH)] as never });
  const deploy = await wallet.deployContract({ abi: USDC_ABI, bytecode: USDC_BYTECODE });
  await provider.request({ method: 'evm_mine' as never });
  const usdc = (await reader.getTransactionReceipt({ hash: deploy })).contractAddress!;
  await wallet.writeContract({ address: usdc, abi: USDC_ABI, functionName: 'mint', args: [faucet.address, FAUCET_USDC] });
  await wallet.writeContract({ address: usdc, abi: USDC_ABI, functionName: 'mint', args: [options.hotWallet, HOT_USDC] });
  await provider.request({ method: 'evm_mine' as never });

  // Blocks 1 and 2 hold the set-up; block k > 2 is due `k - 2` block times after start.
  const startMs = options.nowMs;
  const setupBlocks = 2n;
  const blockSeconds = Math.max(1, Math.round(options.blockMs / 1000));
  let queue: Promise<void> = Promise.resolve();
  return {
    provider,
    chainId,
    usdc,
    faucet: faucet.address,
    catchUp(nowMs) {
      queue = queue.then(async () => {
        const due = setupBlocks + BigInt(Math.max(0, Math.floor((nowMs - startMs) / options.blockMs)));
        const head = await reader.getBlockNumber({ cacheTime: 0 });
        if (due > head) await provider.request({ method: 'hardhat_mine' as never, params: [toHex(due - head), toHex(blockSeconds)] as never });
      });
      return queue;
    },
    async close() {
      await queue.catch(() => undefined);
      await connection.close();
    },
  };
}
