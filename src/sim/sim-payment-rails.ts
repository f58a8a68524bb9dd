import { inject, injectable } from '../core/shared/di.js';
import { Clock } from '../core/ports/clock.js';
import type { OutboundTransfer, PaymentRails, RailSettlement, RailSubmission } from '../core/ports/payment-rails.js';
import { Random } from '../core/ports/random.js';
import { Store, type StoreTransaction } from '../core/ports/store.js';
import { ApiError } from '../core/shared/api-error.js';
import { isExternal, parseRecipient, recipientKey } from '../core/wallet/recipients.js';
import type { RailFaults } from '../core/ports/rail-faults.js';
import type { WalletFailureBody, WalletFailureRule } from '../core/wallet/wallet.schema.js';
import { BANK_SETTLE_MS, bankReference } from './sim-bank.js';
import { CHAIN_TIMING, blockAt, transactionHash } from './fake-chain.js';

const TRANSFERS = 'sim_rail_transfers';
const FAILURES = 'sim_rail_failures';
const FAILURES_ID = 'rules';

/** What the simulated world decided about a transfer when it took it. */
interface SimTransfer {
  reference: string;
  transaction_id: string;
  rail: OutboundTransfer['rail'];
  block: number | null;
  settles_at_ms: number;
  outcome: 'confirmed' | 'failed';
  reason: string | null;
}

interface FailureRules {
  next_id: number;
  rules: WalletFailureRule[];
}

/**
 * The simulated outside world of money: a fake chain for ethereum, base and solana (blocks on the
 * service clock, a transaction hash per transfer, confirmation after 24 s, 4 s and 1 s) and a
 * simulated bank (pending for 24 hours). Whether a transfer will fail is decided when it is taken,
 * from the failure rules of the control plane; everything lives in the store, so snapshots and
 * restores carry the world's decisions too.
 */
@injectable()
export class SimPaymentRails implements PaymentRails, RailFaults {
  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    @inject(Random) private readonly random: Random,
  ) {}

  submit(tx: StoreTransaction, transfer: OutboundTransfer): RailSubmission {
    const nowMs = this.clock.now();
    const failure = this.takeFailure(tx, transfer.to);
    const bytes = (n: number) => this.random.bytes(n);
    const chain = transfer.rail === 'iban' || transfer.rail === 'aba' ? undefined : transfer.rail;
    const record: SimTransfer = {
      reference: chain ? transactionHash(chain, bytes) : bankReference(transfer.rail as 'iban' | 'aba', bytes),
      transaction_id: transfer.transaction_id,
      rail: transfer.rail,
      block: chain ? blockAt(chain, nowMs) : null,
      settles_at_ms: nowMs + (chain ? CHAIN_TIMING[chain].confirmMs : BANK_SETTLE_MS),
      outcome: failure ? 'failed' : 'confirmed',
      reason: failure?.reason ?? null,
    };
    tx.insert(TRANSFERS, record.reference, record);
    return { reference: record.reference, block: record.block, check_at_ms: record.settles_at_ms };
  }

  check(reference: string): RailSettlement {
    const transfer = this.store.view.get<SimTransfer>(TRANSFERS, reference);
    if (!transfer) return { status: 'failed', reason: 'unknown transfer' };
    if (this.clock.now() < transfer.settles_at_ms) return { status: 'pending', check_at_ms: transfer.settles_at_ms };
    return transfer.outcome === 'confirmed' ? { status: 'confirmed' } : { status: 'failed', reason: transfer.reason ?? 'failed' };
  }

  async addFailure(body: WalletFailureBody): Promise<WalletFailureRule> {
    let recipient: string | null = null;
    if (body.recipient !== undefined) {
      const parsed = parseRecipient(body.recipient);
      if (!parsed || !isExternal(parsed)) {
        throw new ApiError('invalid_recipient', 'recipient: must be an address or bank account (book transfers never fail)', 'recipient');
      }
      recipient = recipientKey(parsed);
    }
    return this.store.transaction((tx) => {
      const current = tx.get<FailureRules>(FAILURES, FAILURES_ID);
      const nextId = current?.next_id ?? 1;
      const rule: WalletFailureRule = {
        rule_id: `fail_${nextId}`,
        recipient,
        remaining: recipient === null ? 1 : null,
        reason: body.reason ?? 'simulated failure',
      };
      const next: FailureRules = { next_id: nextId + 1, rules: [...(current?.rules ?? []), rule] };
      if (current) tx.update(FAILURES, FAILURES_ID, next);
      else tx.insert(FAILURES, FAILURES_ID, next);
      return rule;
    });
  }

  async clearFailures(): Promise<void> {
    await this.store.transaction((tx) => {
      tx.remove(FAILURES, FAILURES_ID);
    });
  }

  /** The rule that dooms a transfer to `to`, if any: a recipient rule, else the oldest "next" rule (used up). */
  private takeFailure(tx: StoreTransaction, to: string): WalletFailureRule | undefined {
    const current = tx.get<FailureRules>(FAILURES, FAILURES_ID);
    if (!current || current.rules.length === 0) return undefined;
    const byRecipient = current.rules.find((rule) => rule.recipient === to);
    if (byRecipient) return byRecipient;
    const next = current.rules.find((rule) => rule.recipient === null);
    if (!next) return undefined;
    tx.update(FAILURES, FAILURES_ID, { ...current, rules: current.rules.filter((rule) => rule !== next) });
    return next;
  }
}
