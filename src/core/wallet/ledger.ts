import { inject, injectable } from '../shared/di.js';
import { Clock } from '../ports/clock.js';
import { EventLog, type NewEvent } from '../ports/event-log.js';
import { Store, type PageResult, type Positioned, type StoreTransaction, type StoreView } from '../ports/store.js';
import { ApiError } from '../shared/api-error.js';
import { decodeCursor, encodeCursor } from '../shared/cursor.js';
import { toIso } from '../shared/time.js';
import { formatAmount, storedMinor } from './amount.js';
import { ASSETS, type Asset } from './assets.js';
import type { Rail } from './fees.js';
import type { TransactionStatus, WalletLedger, WalletTransaction } from './wallet.schema.js';

/**
 * The wallets collection, one record per agent. Every transaction that changes balances first
 * locks each wallet it touches, `await tx.lock(WALLETS, agentIds)`, before reading any of them.
 */
export const WALLETS = 'wallets';
const TRANSACTIONS = 'wallet_transactions';
const TOTALS = 'wallet_totals';
const TOTALS_ID = 'service';

/** An agent's balances, all assets in one record, each at its full precision. */
export interface WalletRecord {
  agent_id: string;
  balances: Record<Asset, string>;
  updated_at: string;
}

/** What kind of movement a history record belongs to. */
export type MovementKind = 'transfer' | 'fund' | 'opening_balance' | 'invoice' | 'card' | 'deposit';

/** A history record as stored: the wire fields plus what the service needs to settle it. */
export interface StoredTransaction extends WalletTransaction {
  agent_id: string;
  kind: MovementKind;
  rail: Rail | 'book' | null;
}

/** Service-wide totals as amounts at each asset's precision (like balances): what came in, what fees kept, what left. */
interface TotalsRecord {
  funded_in: Record<Asset, string>;
  fees_collected: Record<Asset, string>;
  sent_out: Record<Asset, string>;
}

/** Changes to the service-wide totals, in minor units. */
export interface TotalsDelta {
  funded_in?: bigint;
  fees_collected?: bigint;
  sent_out?: bigint;
}

function zeroBalances(): Record<Asset, string> {
  return { usd: formatAmount(0n, 'usd'), eur: formatAmount(0n, 'eur'), usdc: formatAmount(0n, 'usdc'), eth: formatAmount(0n, 'eth'), sol: formatAmount(0n, 'sol') };
}

/** The wire form of a stored record. */
export function toWire(record: StoredTransaction): WalletTransaction {
  return {
    id: record.id,
    direction: record.direction,
    amount: record.amount,
    asset: record.asset,
    to: record.to,
    from: record.from,
    memo: record.memo,
    status: record.status,
    network: record.network,
    fee: record.fee,
    created_at: record.created_at,
    reference: record.reference,
  };
}

/** Records {@link sentOn} reads at once, newest first. */
const SENT_ON_PAGE = 100;

/**
 * What an agent sent on one UTC day (`YYYY-MM-DD`), per asset in minor units: its outbound sends
 * (book, chain and bank transfers) made that day that did not fail, fees excluded. Reads each
 * asset's outbound history newest first, back to the day's start: the cost follows the day's
 * sends. The policy service counts a day from it when a policy is set.
 */
export async function sentOn(view: StoreView, agentId: string, day: string): Promise<Partial<Record<Asset, bigint>>> {
  const sent: Partial<Record<Asset, bigint>> = {};
  for (const asset of ASSETS) {
    let before: number | undefined;
    for (let more = true; more; ) {
      const page = await view.page<StoredTransaction>(TRANSACTIONS, { partition: historyPartition(agentId, asset, 'out'), limit: SENT_ON_PAGE, ...(before === undefined ? {} : { before }) });
      for (const { record, position } of page.items) {
        before = position;
        const recordDay = record.created_at.slice(0, 10);
        if (recordDay < day) {
          more = false;
          break;
        }
        if (recordDay === day && record.kind === 'transfer' && record.status !== 'failed') sent[asset] = (sent[asset] ?? 0n) + storedMinor(record.amount);
      }
      more &&= page.hasMore;
    }
  }
  return sent;
}

/** The partition of an agent's history records of one asset and direction. */
function historyPartition(agentId: string, asset: Asset, direction: 'in' | 'out'): string {
  return `${agentId}|${asset}|${direction}`;
}

/** The id of a history record in its collection. */
function historyId(record: StoredTransaction): string {
  return historyKey(record.agent_id, record.id);
}

function historyKey(agentId: string, transactionId: string): string {
  return `${agentId}:${transactionId}`;
}

/** A stored history record of an agent, or undefined (what {@link Ledger.find} answers, for readers outside the wallet). */
export function findTransaction(view: StoreView, agentId: string, transactionId: string): Promise<StoredTransaction | undefined> {
  return view.get<StoredTransaction>(TRANSACTIONS, historyKey(agentId, transactionId));
}

/** The `wallet.transaction.created` event of a history record. */
function createdEvent(record: StoredTransaction): NewEvent {
  return {
    type: 'wallet.transaction.created',
    agent_id: record.agent_id,
    data: {
      transaction_id: record.id,
      direction: record.direction,
      amount: record.amount,
      asset: record.asset,
      to: record.to,
      from: record.from,
      status: record.status,
      network: record.network,
      fee: record.fee,
      tx_hash: record.reference,
    },
  };
}

/**
 * The money primitives every wallet operation is built from, each run inside the caller's store
 * transaction: balances are integer minor units (bigint) stored as exact decimal strings, a debit
 * that would go below zero throws 402 and so rolls the whole transaction back, and each history
 * record is written with its filter indexes and its event in the same transaction. A transaction
 * that changes balances locks every wallet it touches first ({@link WALLETS}), before
 * {@link Ledger.adjust} reads them.
 */
@injectable()
export class Ledger {
  private lastIso = { ms: Number.NaN, iso: '' };
  /** Partition names already built, by agent, then direction and asset. */
  private readonly partitionNames = new Map<string, Record<'in' | 'out', Partial<Record<Asset, string>>>>();

  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    @inject(EventLog) private readonly events: EventLog,
  ) {}

  /** An agent's wallet; all zero (dated `createdAt`) when nothing has moved yet. */
  async wallet(view: StoreView, agentId: string, createdAt?: string): Promise<WalletRecord> {
    return (await view.get<WalletRecord>(WALLETS, agentId)) ?? { agent_id: agentId, balances: zeroBalances(), updated_at: createdAt ?? this.nowIso() };
  }

  /** Creates an empty wallet (at agent creation; the caller has locked it). */
  async open(tx: StoreTransaction, agentId: string): Promise<void> {
    if (!(await tx.get(WALLETS, agentId))) await tx.insert(WALLETS, agentId, { agent_id: agentId, balances: zeroBalances(), updated_at: this.nowIso() });
  }

  /**
   * Adds `delta` (minor units, may be negative) to one balance. The caller has locked the wallet
   * ({@link WALLETS}) in this transaction.
   * @throws ApiError 402 insufficient_funds when the balance would go below zero
   */
  async adjust(tx: StoreTransaction, agentId: string, asset: Asset, delta: bigint): Promise<bigint> {
    const stored = await tx.get<WalletRecord>(WALLETS, agentId);
    const [record, next] = this.adjusted(stored, agentId, asset, delta);
    await (stored ? tx.update(WALLETS, agentId, record) : tx.insert(WALLETS, agentId, record));
    return next;
  }

  /**
   * A book transfer's money movement, in this order: `debit` off the sender's balance, its `out`
   * record, `credit` onto the payee's balance, its `in` record, then both records' events in one
   * append (every book transfer passes here). Each collection gets its writes in the order
   * {@link adjust} and {@link record} made them (positions are per collection, so a world's bytes
   * are the same), and no append hook reads a wallet. The caller has locked both wallets.
   * @throws ApiError 402 insufficient_funds when the sender's balance would go below zero
   */
  async transfer(tx: StoreTransaction, out: StoredTransaction, incoming: StoredTransaction, debit: bigint, credit: bigint): Promise<void> {
    const sender = await tx.get<WalletRecord>(WALLETS, out.agent_id);
    const [debited] = this.adjusted(sender, out.agent_id, out.asset, -debit);
    await (sender ? tx.update(WALLETS, out.agent_id, debited) : tx.insert(WALLETS, out.agent_id, debited));
    await tx.insert(TRANSACTIONS, historyId(out), out, this.partitionOf(out.agent_id, out.asset, out.direction));
    const payee = await tx.get<WalletRecord>(WALLETS, incoming.agent_id);
    const [credited] = this.adjusted(payee, incoming.agent_id, incoming.asset, credit);
    await (payee ? tx.update(WALLETS, incoming.agent_id, credited) : tx.insert(WALLETS, incoming.agent_id, credited));
    await tx.insert(TRANSACTIONS, historyId(incoming), incoming, this.partitionOf(incoming.agent_id, incoming.asset, incoming.direction));
    await this.events.appendAll(tx, [createdEvent(out), createdEvent(incoming)]);
  }

  /**
   * The wallet record with `delta` added to one balance (an all-zero wallet when none is stored),
   * and the new balance.
   * @throws ApiError 402 insufficient_funds when the balance would go below zero
   */
  private adjusted(stored: WalletRecord | undefined, agentId: string, asset: Asset, delta: bigint): [WalletRecord, bigint] {
    const balances = stored ? stored.balances : zeroBalances();
    const next = storedMinor(balances[asset]) + delta;
    if (next < 0n) throw new ApiError('insufficient_funds', `the ${asset} balance is below the amount plus fee`);
    return [{ agent_id: agentId, balances: { ...balances, [asset]: formatAmount(next, asset) }, updated_at: this.nowIso() }, next];
  }

  /** The service time as ISO 8601; remembered per instant, since one money movement asks several times. */
  nowIso(): string {
    const now = this.clock.now();
    if (now !== this.lastIso.ms) this.lastIso = { ms: now, iso: toIso(now) };
    return this.lastIso.iso;
  }

  /** Adds to the service-wide totals of an asset (funded in, fees kept, sent out of the service). */
  async addTotals(tx: StoreTransaction, asset: Asset, delta: TotalsDelta): Promise<void> {
    const current = await tx.get<TotalsRecord>(TOTALS, TOTALS_ID);
    const base: TotalsRecord = current ?? { funded_in: zeroBalances(), fees_collected: zeroBalances(), sent_out: zeroBalances() };
    const add = (field: keyof TotalsRecord, by: bigint | undefined) => (by === undefined || by === 0n ? base[field] : { ...base[field], [asset]: formatAmount(storedMinor(base[field][asset]) + by, asset) });
    const next: TotalsRecord = { funded_in: add('funded_in', delta.funded_in), fees_collected: add('fees_collected', delta.fees_collected), sent_out: add('sent_out', delta.sent_out) };
    if (current) await tx.update(TOTALS, TOTALS_ID, next);
    else await tx.insert(TOTALS, TOTALS_ID, next);
  }

  /** Writes a history record (in its agent's asset-and-direction partition) and its `wallet.transaction.created` event. */
  async record(tx: StoreTransaction, record: StoredTransaction): Promise<void> {
    await tx.insert(TRANSACTIONS, historyId(record), record, this.partitionOf(record.agent_id, record.asset, record.direction));
    await this.events.append(tx, createdEvent(record));
  }

  /** A stored record of an agent, or undefined. */
  find(view: StoreView, agentId: string, transactionId: string): Promise<StoredTransaction | undefined> {
    return findTransaction(view, agentId, transactionId);
  }

  /**
   * Moves a record out of `pending` (the only transitions: pending → confirmed | failed) and
   * appends `wallet.transaction.updated`.
   */
  async settle(tx: StoreTransaction, record: StoredTransaction, status: Exclude<TransactionStatus, 'pending'>, extra: { reason?: string } = {}): Promise<StoredTransaction> {
    if (record.status !== 'pending') throw new Error(`transaction ${record.id} is ${record.status}, not pending`);
    const next: StoredTransaction = { ...record, status };
    await tx.update(TRANSACTIONS, historyId(record), next);
    await this.events.append(tx, {
      type: 'wallet.transaction.updated',
      agent_id: record.agent_id,
      data: {
        transaction_id: record.id,
        status,
        previous_status: record.status,
        tx_hash: record.reference,
        ...(extra.reason === undefined ? {} : { reason: extra.reason }),
      },
    });
    return next;
  }

  /**
   * A newest-first page of an agent's history. Records live in one partition per (agent, asset,
   * direction), all in one collection whose positions grow with time, so a page merges the newest
   * `limit + 1` records of at most ten partitions (fewer with filters): its cost follows the page
   * size, never the length of the history, and no record is written twice.
   * @throws ApiError 400 invalid_request (a cursor of another list)
   */
  async page(
    agentId: string,
    query: { limit: number; cursor?: string | undefined; asset?: Asset | undefined; direction?: 'in' | 'out' | undefined },
  ): Promise<{
    records: StoredTransaction[];
    next_cursor: string | null;
  }> {
    const list = `wallet.transactions|${query.asset ?? ''}|${query.direction ?? ''}`;
    const before = query.cursor === undefined ? undefined : decodeCursor(list, query.cursor);
    const assets = query.asset === undefined ? ASSETS : [query.asset];
    const directions = query.direction === undefined ? (['in', 'out'] as const) : [query.direction];
    const reads: Array<Promise<PageResult<StoredTransaction>>> = [];
    for (const asset of assets) {
      for (const direction of directions) {
        reads.push(
          this.store.view.page<StoredTransaction>(TRANSACTIONS, {
            partition: this.partitionOf(agentId, asset, direction),
            limit: query.limit,
            ...(before === undefined ? {} : { before }),
          }),
        );
      }
    }
    const merged: Array<Positioned<StoredTransaction>> = [];
    let hasMore = false;
    for (const page of await Promise.all(reads)) {
      merged.push(...page.items);
      hasMore ||= page.hasMore;
    }
    merged.sort((a, b) => b.position - a.position);
    if (merged.length > query.limit) hasMore = true;
    const items = merged.slice(0, query.limit);
    const last = items[items.length - 1];
    return { records: items.map((item) => item.record), next_cursor: hasMore && last ? encodeCursor(list, last.position) : null };
  }

  /**
   * Service-wide totals per asset, with `held` summed over every wallet; both read in one
   * transaction, so they come from the same committed state and conservation holds between them.
   */
  async totals(): Promise<WalletLedger> {
    const [totals, wallets] = await this.store.transaction(async (tx) => [await tx.get<TotalsRecord>(TOTALS, TOTALS_ID), await tx.all<WalletRecord>(WALLETS)] as const);
    const held = Object.fromEntries(ASSETS.map((asset) => [asset, 0n])) as Record<Asset, bigint>;
    for (const wallet of wallets) for (const asset of ASSETS) held[asset] += storedMinor(wallet.balances[asset]);
    const entry = (asset: Asset) => ({
      funded_in: totals?.funded_in[asset] ?? formatAmount(0n, asset),
      held: formatAmount(held[asset], asset),
      fees_collected: totals?.fees_collected[asset] ?? formatAmount(0n, asset),
      sent_out: totals?.sent_out[asset] ?? formatAmount(0n, asset),
    });
    return { assets: { usd: entry('usd'), eur: entry('eur'), usdc: entry('usdc'), eth: entry('eth'), sol: entry('sol') } };
  }

  /**
   * The partition of an agent's records of one asset and direction, built once per agent and
   * kept: each record's row holds its partition name and the store looks it up in a map, so one
   * shared string (its hash computed once) costs less than a new one per record.
   */
  private partitionOf(agentId: string, asset: Asset, direction: 'in' | 'out'): string {
    let names = this.partitionNames.get(agentId);
    if (!names) this.partitionNames.set(agentId, (names = { in: {}, out: {} }));
    return (names[direction][asset] ??= historyPartition(agentId, asset, direction));
  }
}
