import { inject, injectable } from '../shared/di.js';
import { EventLog } from '../ports/event-log.js';
import { PaymentRails, type RailName } from '../ports/payment-rails.js';
import { Random } from '../ports/random.js';
import { Store, type StoreTransaction } from '../ports/store.js';
import { ApiError, notFound } from '../shared/api-error.js';
import { z } from 'zod';
import { Scheduler, defineJob, type JobData } from '../services/scheduler.js';
import { ServiceConfig } from '../shared/service-config.js';
import { IdentityService, type AgentRecord } from '../identity/identity.service.js';
import { PolicyService } from '../policy/policy.service.js';
import { formatAmount, parseAmount, storedMinor, toMinorUnits } from './amount.js';
import { ASSETS, DECIMALS, type Asset } from './assets.js';
import { planSend } from './fees.js';
import { Ledger, WALLETS, toWire, type StoredTransaction } from './ledger.js';
import { isExternal, parseRecipient, recipientKey, type ExternalRecipient, type Recipient } from './recipients.js';
import { WalletConfig } from './wallet-config.js';
import { addOwed } from './chain-flows.js';
import type { ChainAsset } from '../ports/chain-networks.js';
import type { FundWalletBody, OpeningBalances, SendPaymentBody, SendPaymentResult, TransactionList, TransactionsQuery, WalletBalance, WalletLedger, WalletTransaction } from './wallet.schema.js';

/** Job type of the settlement check of an outbound transfer. */
export const SETTLE_JOB = defineJob('wallet.settle', z.object({ agent_id: z.string(), transaction_id: z.string() }));

/** What a lookup that names no agent answers. */
const NO_AGENT: Promise<undefined> = Promise.resolve(undefined);

/** Longest accepted `to`. */
const TO_MAX = 256;

/**
 * The fee of an incoming record, one frozen object per asset shared by every such record (records
 * are frozen when read, so none is ever changed): a book transfer keeps one object and one string
 * fewer per send.
 */
const NO_FEE: Readonly<Record<Asset, { readonly amount: string; readonly asset: Asset }>> = Object.freeze(
  Object.fromEntries(ASSETS.map((asset) => [asset, Object.freeze({ amount: formatAmount(0n, asset), asset })])) as Record<Asset, { amount: string; asset: Asset }>,
);

/**
 * Balances, sends and history. Validation (amount, recipient form, asset and network fit,
 * recipient lookup) happens before the store transaction; the balance check, the debit of amount
 * plus fee, the history records and the events happen in one transaction that first locks every
 * wallet it touches, so concurrent sends can never overdraw and a failure leaves nothing behind.
 */
@injectable()
export class WalletService {
  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Random) private readonly random: Random,
    @inject(EventLog) private readonly events: EventLog,
    @inject(Scheduler) private readonly scheduler: Scheduler,
    @inject(ServiceConfig) private readonly config: ServiceConfig,
    @inject(IdentityService) private readonly identity: IdentityService,
    @inject(PaymentRails) private readonly rails: PaymentRails,
    @inject(WalletConfig) private readonly walletConfig: WalletConfig,
    @inject(Ledger) private readonly ledger: Ledger,
    @inject(PolicyService) private readonly policies: PolicyService,
  ) {}

  /** The balance of the calling agent. */
  async balance(agentId: string): Promise<WalletBalance> {
    const wallet = await this.ledger.wallet(this.store.view, agentId, (await this.identity.agent(agentId)).created_at);
    const b = wallet.balances;
    return { fiat: { usd: b.usd, eur: b.eur }, crypto: { usdc: b.usdc, eth: b.eth, sol: b.sol }, updated_at: wallet.updated_at };
  }

  /**
   * Sends money: a book transfer to an agent of the service (fee 0, confirmed at once, the
   * recipient gets an `in` record with the same id) or an on-chain / bank transfer (pending until
   * the rail settles it).
   * @throws ApiError 400 invalid_amount (amount), invalid_recipient (to), unsupported_network
   *   (network), 404 recipient_not_found (to), 402 insufficient_funds, 403 policy_violation
   *   (amount, to, network: the agent's policy, checked and counted in the send's transaction)
   */
  send(agentId: string, body: SendPaymentBody): Promise<SendPaymentResult> {
    return this.policies.enforced(agentId, 'wallet.send', () => this.sendUnderPolicy(agentId, body));
  }

  private async sendUnderPolicy(agentId: string, body: SendPaymentBody): Promise<SendPaymentResult> {
    const asset = body.asset;
    const amount = parseAmount(body.amount, asset, 'amount');
    const recipient = body.to.length <= TO_MAX ? parseRecipient(body.to) : undefined;
    if (!recipient) {
      throw new ApiError('invalid_recipient', 'to: not a handle, agent email, EVM or Solana address, iban:<IBAN> or aba:<routing>:<account>', 'to');
    }
    const plan = planSend(recipient, asset, body.network, this.walletConfig.fees);
    const sender = await this.identity.agent(agentId);
    let payee: AgentRecord | undefined;
    if (plan.rail === 'book') {
      payee = await this.resolveAgent(recipient);
      if (!payee) throw new ApiError('recipient_not_found', `to: no wallet in this service answers to "${body.to}"`, 'to');
      if (payee.agent_id === agentId) throw new ApiError('invalid_recipient', 'to: that is your own wallet', 'to');
    }
    const transactionId = this.random.id('transaction');
    const sentAt = this.ledger.nowIso();
    const fee = { amount: formatAmount(plan.fee, asset), asset };
    const memo = body.memo ?? '';
    const amountText = formatAmount(amount, asset);
    const network = plan.rail === 'ethereum' || plan.rail === 'base' || plan.rail === 'solana' ? plan.rail : null;
    const status = await this.store.transaction(async (tx) => {
      await tx.lock(WALLETS, payee ? [agentId, payee.agent_id] : [agentId]);
      if (payee) this.identity.willRecordActivity(tx, [agentId, payee.agent_id]);
      await this.policies.checkSend(tx, agentId, { to: body.to, agentName: payee?.name ?? null, serviceDomain: this.config.serviceDomain, asset, amount, network });
      const out: StoredTransaction = {
        id: transactionId,
        direction: 'out',
        amount: amountText,
        asset,
        to: body.to,
        from: sender.handle,
        memo,
        status: payee ? 'confirmed' : 'pending',
        network,
        fee,
        created_at: sentAt,
        agent_id: agentId,
        kind: 'transfer',
        rail: plan.rail,
        reference: null,
      };
      if (payee) {
        await this.ledger.transfer(tx, out, { ...out, direction: 'in', fee: NO_FEE[asset], agent_id: payee.agent_id }, amount + plan.fee, amount);
        await this.identity.recordActivity(tx, [agentId, payee.agent_id], 'payments_confirmed');
        return out.status;
      }
      await this.ledger.adjust(tx, agentId, asset, -(amount + plan.fee));
      const submission = await this.rails.submit(tx, {
        transaction_id: transactionId,
        rail: plan.rail as RailName,
        asset,
        amount: amountText,
        to: recipientKey(recipient as ExternalRecipient),
        from_agent_id: agentId,
      });
      await this.ledger.record(tx, { ...out, reference: submission.reference });
      await this.ledger.addTotals(tx, asset, { sent_out: amount, fees_collected: plan.fee });
      if (network) await addOwed(tx, network, asset as ChainAsset, -(amount + plan.fee));
      await this.scheduler.schedule(tx, submission.check_at_ms, SETTLE_JOB, { agent_id: agentId, transaction_id: transactionId });
      return out.status;
    });
    return { transaction_id: transactionId, status, fee, sent_at: sentAt };
  }

  /**
   * Settles an outbound transfer when its rail says so: confirmed, or failed with the amount
   * returned (and a bank fee; an on-chain fee is kept). Runs as the `wallet.settle` job.
   */
  async settle({ agent_id: agentId, transaction_id: transactionId }: JobData<typeof SETTLE_JOB>): Promise<void> {
    const pending = await this.ledger.find(this.store.view, agentId, transactionId);
    if (!pending || pending.status !== 'pending' || !pending.reference) return;
    const outcome = await this.rails.check(pending.reference);
    await this.store.transaction(async (tx) => {
      const record = await this.ledger.find(tx, agentId, transactionId);
      if (!record || record.status !== 'pending') return;
      if (outcome.status === 'pending') {
        await this.scheduler.schedule(tx, outcome.check_at_ms, SETTLE_JOB, { agent_id: agentId, transaction_id: transactionId });
        return;
      }
      if (outcome.status === 'confirmed') {
        await this.ledger.settle(tx, record, 'confirmed');
        await this.identity.recordActivity(tx, agentId, 'payments_confirmed');
        return;
      }
      const asset = record.asset;
      const amount = storedMinor(record.amount);
      const bankFee = record.rail === 'iban' || record.rail === 'aba' ? storedMinor(record.fee.amount) : 0n;
      await tx.lock(WALLETS, [agentId]);
      await this.ledger.adjust(tx, agentId, asset, amount + bankFee);
      await this.ledger.addTotals(tx, asset, { sent_out: -amount, fees_collected: -bankFee });
      if (record.network) await addOwed(tx, record.network, asset as ChainAsset, amount);
      await this.ledger.settle(tx, record, 'failed', { reason: outcome.reason });
      // Failed sends do not count toward the day's policy total.
      await this.policies.sendFailed(tx, agentId, asset, amount, record.created_at);
      await this.identity.recordActivity(tx, agentId, 'payments_failed');
    });
  }

  /**
   * A newest-first page of the calling agent's history.
   * @throws ApiError 400 invalid_request (cursor)
   */
  async transactions(agentId: string, query: TransactionsQuery): Promise<TransactionList> {
    const page = await this.ledger.page(agentId, query);
    return { transactions: page.records.map(toWire), next_cursor: page.next_cursor };
  }

  /** One history record of the calling agent. @throws ApiError 404 not_found */
  async transaction(agentId: string, transactionId: string): Promise<WalletTransaction> {
    const record = await this.ledger.find(this.store.view, agentId, transactionId);
    if (!record) throw notFound('transaction');
    return toWire(record);
  }

  /**
   * Funds an agent's wallet from outside the service (control plane): an `in` record.
   * @throws ApiError 400 invalid_amount (amount), 404 recipient_not_found (handle)
   */
  async fund(body: FundWalletBody): Promise<WalletTransaction> {
    const amount = parseAmount(body.amount, body.asset, 'amount');
    const agent = (await this.identity.findByHandle(body.handle)) ?? (await this.agentNamedBy(body.handle));
    if (!agent) throw new ApiError('recipient_not_found', `handle: no agent "${body.handle}" in this service`, 'handle');
    const transactionId = this.random.id('transaction');
    return this.store.transaction(async (tx) => {
      await tx.lock(WALLETS, [agent.agent_id]);
      const record = await this.credit(tx, agent, body.asset, amount, { id: transactionId, from: 'sim:fund', kind: 'fund', memo: '' });
      await this.events.append(tx, { type: 'wallet.funded', agent_id: agent.agent_id, data: { transaction_id: transactionId, asset: body.asset, amount: record.amount } });
      return toWire(record);
    });
  }

  /**
   * Validates opening balances of agent creation before anything is written.
   * @throws ApiError 400 invalid_amount (param `balances.<asset>`)
   */
  parseOpeningBalances(balances: OpeningBalances | undefined): Array<[Asset, bigint]> {
    const parsed: Array<[Asset, bigint]> = [];
    for (const asset of ASSETS) {
      const text = balances?.[asset];
      if (text === undefined) continue;
      const minor = toMinorUnits(text, DECIMALS[asset]);
      if (typeof minor === 'string') throw new ApiError('invalid_amount', `balances.${asset}: ${minor}`, `balances.${asset}`);
      if (minor > 0n) parsed.push([asset, minor]);
    }
    return parsed;
  }

  /** Opens an agent's wallet with its opening balances (inside the creation transaction, which it locks the wallet in). */
  async openWallet(tx: StoreTransaction, agent: AgentRecord, balances: Array<[Asset, bigint]>): Promise<void> {
    await tx.lock(WALLETS, [agent.agent_id]);
    await this.ledger.open(tx, agent.agent_id);
    for (const [asset, minor] of balances) {
      await this.credit(tx, agent, asset, minor, { id: this.random.id('transaction'), from: 'sim:opening_balance', kind: 'opening_balance', memo: 'opening balance' });
    }
  }

  /**
   * Credits money that comes from outside the service (funding, opening balances, invoice
   * payments): the balance, the service's funded-in total and a confirmed `in` record. The caller
   * has locked the agent's wallet in `tx` (`tx.lock(WALLETS, [agent.agent_id])`).
   */
  async credit(tx: StoreTransaction, agent: AgentRecord, asset: Asset, amount: bigint, what: { id: string; from: string; kind: StoredTransaction['kind']; memo: string }): Promise<StoredTransaction> {
    await this.ledger.adjust(tx, agent.agent_id, asset, amount);
    await this.ledger.addTotals(tx, asset, { funded_in: amount });
    const record: StoredTransaction = {
      id: what.id,
      direction: 'in',
      amount: formatAmount(amount, asset),
      asset,
      to: agent.handle,
      from: what.from,
      memo: what.memo,
      status: 'confirmed',
      network: null,
      fee: { amount: formatAmount(0n, asset), asset },
      created_at: this.ledger.nowIso(),
      agent_id: agent.agent_id,
      kind: what.kind,
      rail: null,
      reference: null,
    };
    await this.ledger.record(tx, record);
    return record;
  }

  /** Conservation per asset: funded in = held + fees collected + sent out. */
  totals(): Promise<WalletLedger> {
    return this.ledger.totals();
  }

  /** The agent a handle or agent email names, if any (the lookup's own promise: no frame of its own on every send). */
  resolveAgent(recipient: Recipient): Promise<AgentRecord | undefined> {
    const domain = this.config.serviceDomain.toLowerCase();
    if (recipient.kind === 'handle') return recipient.domain !== null && recipient.domain !== domain ? NO_AGENT : this.identity.findByHandle(recipient.name);
    if (recipient.kind === 'email') return recipient.domain === domain ? this.identity.findByHandle(recipient.local) : NO_AGENT;
    return NO_AGENT;
  }

  /** The agent a handle (with or without its suffix) or an agent email names, if any. */
  async agentNamed(text: string): Promise<AgentRecord | undefined> {
    return (await this.identity.findByHandle(text)) ?? (await this.agentNamedBy(text));
  }

  /** The agent a handle with its suffix or an agent email names, if any. */
  private async agentNamedBy(text: string): Promise<AgentRecord | undefined> {
    const recipient = parseRecipient(text);
    return recipient && !isExternal(recipient) ? await this.resolveAgent(recipient) : undefined;
  }
}
