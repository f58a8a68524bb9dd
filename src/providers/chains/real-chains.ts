import type { Hex } from 'viem';
import type { ChainAsset, ChainNetworks } from '../../core/ports/chain-networks.js';
import type { Clock } from '../../core/ports/clock.js';
import type { OutboundTransfer, PaymentRails, RailSettlement, RailSubmission } from '../../core/ports/payment-rails.js';
import type { Store, StoreTransaction } from '../../core/ports/store.js';
import type { Network } from '../../core/wallet/assets.js';
import { LOCAL_BLOCK_MS, type ChainSetting } from '../../core/wallet/chain-config.js';
import type { CustodyService } from '../../core/wallet/custody.service.js';
import type { DepositService } from '../../core/wallet/deposit.service.js';
import type { HdCustodyKeys } from '../custody/hd-custody-keys.js';
import { EvmNetwork } from './evm/evm-network.js';
import { EvmRails } from './evm/evm-rails.js';
import { EvmWatcher } from './evm/evm-watcher.js';
import { EvmSweeper } from './evm/evm-sweeper.js';
import { signerOf } from './solana/solana-transactions.js';
import { DeferredSolanaLedger } from './solana/deferred-solana-ledger.js';
import { SolanaRails } from './solana/solana-rails.js';
import { SolanaSweeper } from './solana/solana-sweeper.js';
import { SolanaWatcher } from './solana/solana-watcher.js';
import type { SolanaLedger } from './solana/solana-ledger.js';

/** How often the pollers look for new blocks, in real milliseconds: local chains answer at once, remote ones are asked less often. */
const POLL_MS = { local: 100, rpc: 1_000 } as const;

/** What the chains need of the runtime once it is composed. */
export interface ChainServices {
  store: Store;
  clock: Clock;
  custody: CustodyService;
  deposits: DepositService;
  /** Where failures of the background pollers are reported. */
  report(message: string): void;
}

/**
 * The networks that run on real chains (`local` or a JSON-RPC URL): their connections, the
 * outbound rail, the inbound pollers, and what the control plane asks of them. Networks left in
 * `sim` are not here; the wallet's simulated rails carry them.
 */
export class RealChains implements ChainNetworks {
  readonly evm = new Map<string, EvmNetwork>();
  private rails: EvmRails | undefined;
  private watchers: Array<EvmWatcher | SolanaWatcher> = [];
  private solana: { ledger: SolanaLedger; confirmations: number; hot: Promise<import('@solana/kit').KeyPairSigner>; rails?: SolanaRails } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private stopped = false;
  private started: Promise<void> | undefined;

  constructor(
    settings: Readonly<Record<Network, ChainSetting>>,
    private readonly keys: HdCustodyKeys,
    nowMs: number,
  ) {
    for (const network of ['ethereum', 'base'] as const) {
      const setting = settings[network];
      if (setting.mode === 'sim') continue;
      this.evm.set(
        network,
        new EvmNetwork({
          network,
          connection: setting.mode === 'local' ? { kind: 'local', nowMs, blockMs: LOCAL_BLOCK_MS[network] } : { kind: 'rpc', url: setting.url },
          usdc: setting.usdc as Hex | null,
          confirmations: setting.confirmations,
          hot: keys.evmAccount(0),
        }),
      );
    }
    const solana = settings.solana;
    if (solana.mode === 'rpc') {
      const { url, usdc } = solana;
      const ledger = new DeferredSolanaLedger(false, async () => new (await import('./solana/rpc-solana.js')).RpcSolana(url, usdc));
      this.solana = { ledger, confirmations: solana.confirmations, hot: signerOf(keys.solanaKey(0).privateKey) };
    }
    if (solana.mode === 'local') {
      const key = keys.solanaKey(0);
      // LiteSVM is a native package: imported only now that solana runs `local`.
      const options = { hotWallet: keys.addresses(0).solana, nowMs, slotMs: LOCAL_BLOCK_MS.solana };
      const ledger = new DeferredSolanaLedger(true, async () => new (await import('./solana/local-solana.js')).LocalSolana(options));
      this.solana = { ledger, confirmations: solana.confirmations, hot: signerOf(key.privateKey) };
    }
  }

  /** The payment rails: real networks through the EVM rail, everything else through `fallback`. */
  paymentRails(store: Store, clock: Clock, fallback: PaymentRails): PaymentRails {
    const rails = (this.rails ??= new EvmRails(store, clock, this.evm, (network) => LOCAL_BLOCK_MS[network as Network]));
    const solana = this.solana;
    const solanaRails = solana ? (solana.rails ??= new SolanaRails(store, clock, solana.ledger, solana.hot, solana.confirmations, LOCAL_BLOCK_MS.solana)) : undefined;
    return {
      submit: (tx: StoreTransaction, transfer: OutboundTransfer): Promise<RailSubmission> =>
        rails.carries(transfer.rail) ? rails.submit(tx, transfer) : solanaRails && transfer.rail === 'solana' ? solanaRails.submit(tx, transfer) : fallback.submit(tx, transfer),
      check: async (reference: string): Promise<RailSettlement> =>
        (await rails.owns(reference)) ? rails.check(reference) : solanaRails && (await solanaRails.owns(reference)) ? solanaRails.check(reference) : fallback.check(reference),
    };
  }

  /** Connects every network, indexes custody addresses, broadcasts stored transactions again, then polls. */
  start(services: ChainServices): Promise<void> {
    this.started ??= this.begin(services);
    return this.started;
  }

  private async begin(services: ChainServices): Promise<void> {
    for (const network of this.evm.values()) await network.ready;
    await this.solana?.ledger.ready;
    await services.custody.indexAll();
    await this.rails?.resume();
    await this.solana?.rails?.resume();
    this.watchers = [...this.evm.values()].map((network) => new EvmWatcher(network, services.store, services.clock, services.custody, services.deposits, new EvmSweeper(network, services.store, this.keys)));
    if (this.solana) {
      const { ledger, confirmations, hot } = this.solana;
      this.watchers.push(new SolanaWatcher(ledger, services.store, services.clock, services.custody, services.deposits, confirmations, new SolanaSweeper(ledger, services.store, this.keys, hot)));
    }
    for (const watcher of this.watchers) await watcher.init();
    if (this.stopped) return;
    // A solana cluster over RPC is polled like any remote node (public RPCs limit requests: devnet's to 100 per 10 s).
    const every = [...this.evm.values()].some((network) => network.isLocal) || this.solana?.ledger.isLocal ? POLL_MS.local : POLL_MS.rpc;
    this.timer = setInterval(() => void this.pollOnce().catch((error: unknown) => services.report(`chain poller: ${(error as Error).message}`)), every);
    this.timer.unref();
  }

  /** One pass of every poller (tests call it to not wait for the timer); passes never overlap. */
  async pollOnce(): Promise<number> {
    if (this.polling) return 0;
    this.polling = true;
    try {
      let scanned = 0;
      for (const watcher of this.watchers) scanned += await watcher.poll();
      await this.rails?.rebroadcast();
      for (const network of this.evm.values()) await network.refreshFees();
      await this.solana?.rails?.refresh();
      return scanned;
    } finally {
      this.polling = false;
    }
  }

  async faucetDeposit(network: Network, asset: ChainAsset, amount: bigint, to: string): Promise<string> {
    if (network === 'solana') {
      if (!this.solana || asset === 'eth') throw new Error('solana has no local faucet');
      return this.solana.ledger.faucetDeposit(asset, amount, to);
    }
    const evm = this.evm.get(network);
    if (!evm || asset === 'sol') throw new Error(`${network} has no local faucet`);
    return evm.faucetDeposit(asset, amount, to as Hex);
  }

  async holdings(network: Network, addresses: readonly string[]): Promise<Partial<Record<ChainAsset, bigint>>> {
    if (network === 'solana') {
      if (!this.solana) throw new Error('solana does not run on a real chain');
      await this.started;
      return this.solana.ledger.holdings(addresses);
    }
    const evm = this.evm.get(network);
    if (!evm) throw new Error(`${network} does not run on a real chain`);
    await this.started;
    return evm.holdings(addresses);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    while (this.polling) await new Promise((resolve) => setTimeout(resolve, 10));
    for (const network of this.evm.values()) await network.close();
    await this.solana?.ledger.close();
  }
}
