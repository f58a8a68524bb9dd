import { createPublicClient, custom, encodeFunctionData, http, keccak256, parseAbiItem, toHex, type EIP1193Provider, type Hex, type PublicClient } from 'viem';
import type { HDAccount } from 'viem/accounts';
import type { ChainAsset, ObservedDeposit } from '../../../core/ports/chain-networks.js';
import { USDC_ABI } from './usdc-artifact.js';
import { startLocalEvmNode, type LocalEvmNode } from './local-evm-node.js';

const TRANSFER_EVENT = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
/** The gas limit of a transfer: a plain ETH transfer's gas, and a ceiling for usdc's ERC-20 `transfer` (unused gas is not paid). */
const GAS_LIMIT = { eth: 21_000n, usdc: 100_000n } as const;
/** Priority fee offered above the base fee (1 gwei). */
const TIP = 1_000_000_000n;

/** How an EVM network is reached. */
export type EvmConnection = { kind: 'local'; nowMs: number; blockMs: number } | { kind: 'rpc'; url: string };

/** What a network is configured with. */
export interface EvmNetworkOptions {
  network: 'ethereum' | 'base';
  connection: EvmConnection;
  /** The usdc contract (`--usdc`); a local chain deploys its own when absent. */
  usdc: Hex | null;
  confirmations: number;
  hot: HDAccount;
}

/**
 * One EVM network (ethereum or base) through viem: a local Hardhat EDR chain in the process or a
 * JSON-RPC endpoint. Reads the chain (heads, receipts, usdc Transfer logs, blocks), signs the hot
 * wallet's transfers with a given nonce, broadcasts raw bytes. It keeps no state of its own beyond
 * the fee hint; the store holds cursors, nonces and signed bytes.
 */
export class EvmNetwork {
  readonly name: 'ethereum' | 'base';
  readonly confirmations: number;
  readonly ready: Promise<void>;
  private client!: PublicClient;
  private local: LocalEvmNode | undefined;
  private chainId = 0;
  private usdcAddress: Hex | null;
  private baseFee = 1_000_000_000n;

  constructor(private readonly options: EvmNetworkOptions) {
    this.name = options.network;
    this.confirmations = options.confirmations;
    this.usdcAddress = options.usdc;
    this.ready = this.connect();
    // Callers await `ready`; an unhandled rejection must not end the process before they do.
    this.ready.catch(() => undefined);
  }

  /** The usdc contract of this network. */
  get usdc(): Hex {
    if (!this.usdcAddress) throw new Error(`${this.name}: no usdc contract (give --usdc ${this.name}=ADDRESS)`);
    return this.usdcAddress;
  }

  /** Whether this is a local chain (it has a faucet and makes blocks on the service clock). */
  get isLocal(): boolean {
    return this.options.connection.kind === 'local';
  }

  /** The hot wallet's address. */
  get hotAddress(): Hex {
    return this.options.hot.address;
  }

  /** Mines the local chain's blocks due by `nowMs` (nothing on an RPC network). */
  async catchUp(nowMs: number): Promise<void> {
    await this.ready;
    await this.local?.catchUp(nowMs);
  }

  /** The newest block number. */
  async head(): Promise<bigint> {
    await this.ready;
    return this.client.getBlockNumber({ cacheTime: 0 });
  }

  /** The hash of block `height`, or null past the head. */
  async blockHash(height: bigint): Promise<Hex | null> {
    await this.ready;
    try {
      return (await this.client.getBlock({ blockNumber: height })).hash;
    } catch {
      return null;
    }
  }

  /**
   * Transfers into the chain in blocks `from..to`: usdc `Transfer` logs from one `getLogs` over the
   * range (filtered by the contract, never by address), native ETH from each block's transactions.
   * `isCustody` decides which receivers matter; its cost is one lookup per transfer.
   */
  async scan(from: bigint, to: bigint, isCustody: (address: string) => Promise<boolean>): Promise<ObservedDeposit[]> {
    await this.ready;
    const found: ObservedDeposit[] = [];
    if (this.usdcAddress) {
      const logs = await this.client.getLogs({ address: this.usdcAddress, event: TRANSFER_EVENT, fromBlock: from, toBlock: to });
      for (const log of logs) {
        const receiver = log.args.to!;
        if (log.args.value! > 0n && (await isCustody(receiver))) {
          found.push({
            key: `${log.transactionHash}:${log.logIndex}`,
            reference: log.transactionHash!,
            block: Number(log.blockNumber),
            block_hash: log.blockHash!,
            from: log.args.from!,
            to: receiver,
            asset: 'usdc',
            amount: log.args.value!,
          });
        }
      }
    }
    for (let height = from; height <= to; height++) {
      const block = await this.client.getBlock({ blockNumber: height, includeTransactions: true });
      for (const tx of block.transactions) {
        if (!tx.to || tx.value === 0n || !(await isCustody(tx.to))) continue;
        const receipt = await this.client.getTransactionReceipt({ hash: tx.hash });
        if (receipt.status !== 'success') continue;
        found.push({ key: tx.hash, reference: tx.hash, block: Number(height), block_hash: block.hash!, from: tx.from, to: tx.to, asset: 'eth', amount: tx.value });
      }
    }
    return found;
  }

  /** A transaction's receipt, or null while it is not in a block of the canonical chain. */
  async receipt(hash: Hex): Promise<{ block: bigint; blockHash: Hex; success: boolean } | null> {
    await this.ready;
    try {
      const receipt = await this.client.getTransactionReceipt({ hash });
      return { block: receipt.blockNumber, blockHash: receipt.blockHash, success: receipt.status === 'success' };
    } catch {
      return null;
    }
  }

  /** How many of the hot wallet's transactions are in blocks (its next unmined nonce). */
  async minedNonce(): Promise<number> {
    await this.ready;
    return this.client.getTransactionCount({ address: this.hotAddress, blockTag: 'latest' });
  }

  /** The hot wallet's nonce counting transactions waiting in the node's pool too. */
  async pendingNonce(): Promise<number> {
    await this.ready;
    return this.client.getTransactionCount({ address: this.hotAddress, blockTag: 'pending' });
  }

  /**
   * Signs a transfer from the hot wallet with `nonce`: native ETH, or usdc's `transfer(to, amount)`.
   * Local crypto only (no network), so it runs inside the store transaction that allocated the nonce.
   */
  async sign(nonce: number, asset: 'eth' | 'usdc', to: Hex, amount: bigint, signer: HDAccount = this.options.hot): Promise<{ raw: Hex; hash: Hex }> {
    await this.ready;
    const common = { chainId: this.chainId, nonce, maxFeePerGas: this.maxFee(), maxPriorityFeePerGas: TIP, type: 'eip1559' as const };
    const raw =
      asset === 'eth'
        ? await signer.signTransaction({ ...common, to, value: amount, gas: GAS_LIMIT.eth })
        : await signer.signTransaction({ ...common, to: this.usdc, value: 0n, gas: GAS_LIMIT.usdc, data: encodeFunctionData({ abi: USDC_ABI, functionName: 'transfer', args: [to, amount] }) });
    return { raw, hash: keccak256(raw) };
  }

  /** The most a transfer of `asset` can cost in gas at the fees signatures offer now (wei). */
  gasCost(asset: 'eth' | 'usdc'): bigint {
    return GAS_LIMIT[asset] * this.maxFee();
  }

  /** An address's next nonce, counting its transactions in the node's pool. */
  async nonceOf(address: Hex): Promise<number> {
    await this.ready;
    return this.client.getTransactionCount({ address, blockTag: 'pending' });
  }

  /** An address's ETH balance (wei). */
  async ethBalance(address: Hex): Promise<bigint> {
    await this.ready;
    return this.client.getBalance({ address });
  }

  private maxFee(): bigint {
    return this.baseFee * 2n + TIP;
  }

  /**
   * Broadcasts signed bytes. A node that already has them, or whose chain already holds their
   * nonce, refuses them: that is the idempotence the stored bytes give, not a failure.
   */
  async broadcast(raw: Hex): Promise<void> {
    await this.ready;
    try {
      await this.client.request({ method: 'eth_sendRawTransaction', params: [raw] });
    } catch (error) {
      const message = String((error as Error).message).toLowerCase();
      if (/already known|known transaction|nonce too low|already imported|replacement transaction/.test(message)) return;
      throw error;
    }
  }

  /** Refreshes the base fee the next signatures offer twice of. */
  async refreshFees(): Promise<void> {
    await this.ready;
    await this.readFees();
  }

  private async readFees(): Promise<void> {
    const block = await this.client.getBlock();
    if (block.baseFeePerGas !== null && block.baseFeePerGas !== undefined) this.baseFee = block.baseFeePerGas;
  }

  /** What the addresses hold together, in ETH and usdc (minor units). */
  async holdings(addresses: readonly string[]): Promise<Partial<Record<ChainAsset, bigint>>> {
    await this.ready;
    let eth = 0n;
    let usdc = 0n;
    for (const address of addresses) {
      eth += await this.client.getBalance({ address: address as Hex });
      if (this.usdcAddress) usdc += await this.client.readContract({ address: this.usdcAddress, abi: USDC_ABI, functionName: 'balanceOf', args: [address as Hex] });
    }
    return { eth, usdc };
  }

  /** Sends from the local faucet to `to` (not mined until the next block). @throws Error on an RPC network */
  async faucetDeposit(asset: 'eth' | 'usdc', amount: bigint, to: Hex): Promise<Hex> {
    await this.ready;
    if (!this.local) throw new Error(`${this.name} is not a local chain`);
    const faucet = this.local.faucet;
    // The gas limit is given, not estimated: an estimate holds for the state it was made on, and a
    // sweep mined first in the same block can empty the receiver's usdc, which makes the transfer
    // write a zero slot (20,000 gas more) and run out of gas. Unused gas is not paid.
    const gas = toHex(GAS_LIMIT[asset]);
    const request = asset === 'eth' ? { from: faucet, to, gas, value: toHex(amount) } : { from: faucet, to: this.usdc, gas, data: encodeFunctionData({ abi: USDC_ABI, functionName: 'transfer', args: [to, amount] }) };
    return (await this.local.provider.request({ method: 'eth_sendTransaction', params: [request as never] })) as Hex;
  }

  /** The EIP-1193 provider of a local chain (the chains bench sends its floor through it). */
  get localProvider(): EIP1193Provider | undefined {
    return this.local?.provider;
  }

  async close(): Promise<void> {
    await this.ready.catch(() => undefined);
    await this.local?.close();
  }

  private async connect(): Promise<void> {
    const connection = this.options.connection;
    if (connection.kind === 'local') {
      this.local = await startLocalEvmNode({ network: this.name, hotWallet: this.hotAddress, nowMs: connection.nowMs, blockMs: connection.blockMs });
      this.client = createPublicClient({ transport: custom(this.local.provider) });
      this.usdcAddress ??= this.local.usdc;
    } else {
      this.client = createPublicClient({ transport: http(connection.url, { retryCount: 2 }) });
    }
    this.chainId = await this.client.getChainId();
    await this.readFees();
  }
}
