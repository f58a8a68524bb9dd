import { base58 } from '@scure/base';
import { inject, injectable, optional } from '../shared/di.js';
import { ChainNetworks, type ChainAsset, type ObservedDeposit } from '../ports/chain-networks.js';
import { Clock } from '../ports/clock.js';
import { Random } from '../ports/random.js';
import { Store, type StoreTransaction } from '../ports/store.js';
import { ApiError } from '../shared/api-error.js';
import { z } from 'zod';
import { Scheduler, defineJob, type JobData } from '../services/scheduler.js';
import { IdentityService } from '../identity/identity.service.js';
import { isEvmAddress, isSolanaAddress, toChecksumAddress } from './addresses.js';
import { formatAmount, parseAmount } from './amount.js';
import { NETWORK_ASSETS, type Network } from './assets.js';
import { addOwed, owedOn } from './chain-flows.js';
import { CustodyService } from './custody.service.js';
import { Ledger, WALLETS, type StoredTransaction } from './ledger.js';
import { WalletConfig } from './wallet-config.js';
import type { ChainDeposit, ChainDepositBody, ChainHoldings } from './wallet.schema.js';
import { WalletService } from './wallet.service.js';

/** Job type that confirms a deposit on a simulated network. */
export const DEPOSIT_JOB = defineJob('wallet.deposit.confirm', z.object({ key: z.string() }));

/** Every deposit ever seen, by its key (a transfer is recorded once however often it is seen). */
const DEPOSITS = 'chain_deposits';
/** The deposits still waiting for their depth, by key. */
const PENDING = 'chain_deposits_pending';

/** Confirmation time of a simulated network's deposits (the fake chain's, DECISIONS.md). */
const SIM_CONFIRM_MS: Readonly<Record<Network, number>> = { ethereum: 24_000, base: 4_000, solana: 1_000 };

/** A deposit as stored while and after it waits. */
export interface DepositRecord {
  key: string;
  network: Network;
  agent_id: string;
  transaction_id: string;
  reference: string;
  block: number;
  block_hash: string;
  asset: ChainAsset;
  amount: string;
  status: 'pending' | 'confirmed' | 'failed';
}

/**
 * Deposits to custody addresses: an `in` record `pending` when a transfer is first seen (the
 * balance unchanged), then credited once when it reaches its depth (`confirmed`, one
 * `wallet.transaction.updated`), or `failed` and never credited when a reorg removed it. A
 * transfer seen again is recognised by its key and changes nothing.
 */
@injectable()
export class DepositService {
  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    @inject(Random) private readonly random: Random,
    @inject(Scheduler) private readonly scheduler: Scheduler,
    @inject(IdentityService) private readonly identity: IdentityService,
    @inject(Ledger) private readonly ledger: Ledger,
    @inject(CustodyService) private readonly custody: CustodyService,
    @inject(WalletService) private readonly wallet: WalletService,
    @inject(WalletConfig) private readonly config: WalletConfig,
    @inject(ChainNetworks) @optional() private readonly chains: ChainNetworks | undefined,
  ) {}

  /**
   * Records a transfer to a custody address as a pending `in` record; false when it is no
   * agent's address or was seen before.
   */
  async observe(network: Network, deposit: ObservedDeposit): Promise<boolean> {
    const family = network === 'solana' ? 'solana' : 'evm';
    const owner = await this.custody.agentOfAddress(this.store.view, family, deposit.to);
    if (!owner || deposit.amount <= 0n) return false;
    const key = `${network}:${deposit.key}`;
    if (await this.store.view.get(DEPOSITS, key)) return false;
    const agent = await this.identity.agent(owner.agent_id);
    return this.store.transaction(async (tx) => {
      if (await tx.get(DEPOSITS, key)) return false;
      await this.recordPending(tx, network, key, deposit, agent.agent_id, agent.handle);
      return true;
    });
  }

  /** The deposits of a network still waiting for their depth, oldest first. */
  async pending(network: Network): Promise<DepositRecord[]> {
    return (await this.store.view.all<DepositRecord>(PENDING)).filter((record) => record.network === network);
  }

  /** Credits a pending deposit (`confirmed`) or ends it `failed` without credit; a settled one is left alone. */
  async settle(key: string, outcome: { status: 'confirmed' } | { status: 'failed'; reason: string }): Promise<void> {
    await this.store.transaction(async (tx) => {
      const deposit = await tx.get<DepositRecord>(DEPOSITS, key);
      if (!deposit || deposit.status !== 'pending') return;
      await tx.lock(WALLETS, [deposit.agent_id]);
      const record = await this.ledger.find(tx, deposit.agent_id, deposit.transaction_id);
      if (!record || record.status !== 'pending') return;
      if (outcome.status === 'confirmed') {
        const amount = BigInt(deposit.amount);
        await this.ledger.adjust(tx, deposit.agent_id, deposit.asset, amount);
        await this.ledger.addTotals(tx, deposit.asset, { funded_in: amount });
        await addOwed(tx, deposit.network, deposit.asset, amount);
        await this.ledger.settle(tx, record, 'confirmed');
      } else {
        await this.ledger.settle(tx, record, 'failed', { reason: outcome.reason });
      }
      await tx.update(DEPOSITS, key, { ...deposit, status: outcome.status });
      await tx.remove(PENDING, key);
    });
  }

  /** The `wallet.deposit.confirm` job of simulated networks. */
  async confirmSimulated({ key }: JobData<typeof DEPOSIT_JOB>): Promise<void> {
    await this.settle(key, { status: 'confirmed' });
  }

  /**
   * `POST /_sim/chain/deposits`: on a simulated network a deposit that confirms after the fake
   * chain's time; on a local one a real transfer from the faucet, which the poller then sees.
   * @throws ApiError 400 invalid_request (RPC network, `from` on a real network), invalid_amount,
   *   unsupported_network (asset), invalid_recipient / 404 recipient_not_found (to)
   */
  async deposit(body: ChainDepositBody): Promise<ChainDeposit> {
    const { network, asset } = body;
    if (!NETWORK_ASSETS[network].includes(asset)) throw new ApiError('unsupported_network', `network: ${network} does not carry ${asset}`, 'network');
    const amount = parseAmount(body.amount, asset, 'amount');
    const setting = this.config.chains[network];
    if (setting.mode === 'rpc') throw new ApiError('invalid_request', `network: ${network} is a JSON-RPC network; deposits arrive from the chain itself`, 'network');
    if (setting.mode !== 'sim' && body.from !== undefined) throw new ApiError('invalid_request', `from: only on simulated networks (${network} is local: the faucet sends)`, 'from');
    const target = await this.resolveTarget(network, body.to);
    if (setting.mode === 'local') {
      if (!this.chains) throw new Error('no chain adapter for a local network');
      const reference = await this.chains.faucetDeposit(network, asset, amount, target.address);
      return { network, reference, to: target.address, asset, amount: formatAmount(amount, asset) };
    }
    if (body.from !== undefined && !(network === 'solana' ? isSolanaAddress(body.from) : isEvmAddress(body.from))) {
      throw new ApiError('invalid_request', `from: expected an address of ${network}, got "${body.from}"`, 'from');
    }
    const reference = network === 'solana' ? base58.encode(this.random.bytes(64)) : `0x${Buffer.from(this.random.bytes(32)).toString('hex')}`;
    const from = body.from ?? (network === 'solana' ? base58.encode(this.random.bytes(32)) : toChecksumAddress(`0x${Buffer.from(this.random.bytes(20)).toString('hex')}`));
    const key = `${network}:${reference}`;
    const agent = await this.identity.agent(target.agent_id);
    await this.store.transaction(async (tx) => {
      const deposit: ObservedDeposit = { key: reference, reference, block: 0, block_hash: '', from, to: target.address, asset, amount };
      await this.recordPending(tx, network, key, deposit, agent.agent_id, agent.handle);
      await this.scheduler.schedule(tx, this.clock.now() + SIM_CONFIRM_MS[network], DEPOSIT_JOB, { key });
    });
    return { network, reference, to: target.address, asset, amount: formatAmount(amount, asset) };
  }

  /** `GET /_sim/chain/holdings`: on-chain holdings of every custody address beside what the ledger owes there. */
  async holdings(network: Network): Promise<ChainHoldings> {
    const hot = this.custody.addressesOf(0);
    const family = network === 'solana' ? 'solana' : 'evm';
    const owed = await owedOn(this.store.view, network);
    const held =
      this.config.chains[network].mode === 'sim' || !this.chains
        ? owed
        : await this.chains.holdings(
            network,
            (await this.custody.allIndexes()).map((index) => this.custody.addressesOf(index)[family]),
          );
    const assets = NETWORK_ASSETS[network] as readonly ChainAsset[];
    return {
      network,
      hot_wallet: hot[family],
      holdings: Object.fromEntries(assets.map((asset) => [asset, formatAmount(held[asset] ?? 0n, asset)])),
      ledger: Object.fromEntries(assets.map((asset) => [asset, formatAmount(owed[asset] ?? 0n, asset)])),
    };
  }

  private async recordPending(tx: StoreTransaction, network: Network, key: string, deposit: ObservedDeposit, agentId: string, handle: string): Promise<void> {
    const transactionId = this.random.id('transaction');
    const record: StoredTransaction = {
      id: transactionId,
      direction: 'in',
      amount: formatAmount(deposit.amount, deposit.asset),
      asset: deposit.asset,
      to: handle,
      from: deposit.from,
      memo: '',
      status: 'pending',
      network,
      fee: { amount: formatAmount(0n, deposit.asset), asset: deposit.asset },
      created_at: this.ledger.nowIso(),
      agent_id: agentId,
      kind: 'deposit',
      rail: network,
      reference: deposit.reference,
    };
    await this.ledger.record(tx, record);
    const stored: DepositRecord = {
      key,
      network,
      agent_id: agentId,
      transaction_id: transactionId,
      reference: deposit.reference,
      block: deposit.block,
      block_hash: deposit.block_hash,
      asset: deposit.asset,
      amount: String(deposit.amount),
      status: 'pending',
    };
    await tx.insert(DEPOSITS, key, stored);
    await tx.insert(PENDING, key, stored);
  }

  /** The agent and custody address a deposit's `to` names (handle, agent email, or custody address). */
  private async resolveTarget(network: Network, to: string): Promise<{ agent_id: string; address: string }> {
    const family = network === 'solana' ? 'solana' : 'evm';
    if (family === 'evm' ? isEvmAddress(to) : isSolanaAddress(to)) {
      const owner = await this.custody.agentOfAddress(this.store.view, family, to);
      if (owner) return { agent_id: owner.agent_id, address: this.custody.addressesOf(owner.index)[family] };
      // Addresses are indexed only for real chains: on simulated ones derive each agent's to compare (control plane only).
      const wanted = family === 'evm' ? to.toLowerCase() : to;
      for (const record of await this.custody.allRecords()) {
        const own = this.custody.addressesOf(record.index)[family];
        if ((family === 'evm' ? own.toLowerCase() : own) === wanted) return { agent_id: record.agent_id, address: own };
      }
      throw new ApiError('recipient_not_found', `to: ${to} is no agent's custody address`, 'to');
    }
    const agent = await this.wallet.agentNamed(to);
    if (!agent) throw new ApiError('recipient_not_found', `to: no agent answers to "${to}"`, 'to');
    const index = await this.custody.indexOf(agent.agent_id);
    return { agent_id: agent.agent_id, address: this.custody.addressesOf(index)[family] };
  }
}
