import { inject, injectable } from '../core/shared/di.js';
import { Clock } from '../core/ports/clock.js';
import type { OutboundTransfer, PaymentRails, RailSettlement, RailSubmission } from '../core/ports/payment-rails.js';
import { Random } from '../core/ports/random.js';
import { Store, type StoreTransaction } from '../core/ports/store.js';
import { Faults } from '../core/ports/faults.js';
import { FaultService } from '../core/faults/fault.service.js';
import { ApiError } from '../core/shared/api-error.js';
import { isExternal, parseRecipient, recipientKey } from '../core/wallet/recipients.js';
import type { RailFaults } from '../core/ports/rail-faults.js';
import type { WalletFailureBody, WalletFailureRule } from '../core/wallet/wallet.schema.js';
import { BANK_SETTLE_MS, bankReference } from './sim-bank.js';
import { CHAIN_TIMING, blockAt, transactionHash } from './fake-chain.js';

const TRANSFERS = 'sim_rail_transfers';
/** The wallet's failure targets: `/_sim/wallet/failures` is a shorthand for faults on them. */
const RAIL_TARGETS = ['chain.submit', 'bank.submit'] as const;
/** How long a dropped transfer waits before it is checked again (it never settles). */
const DROPPED_RECHECK_MS = 365 * 86_400_000;

/** What the simulated world decided about a transfer when it took it. */
interface SimTransfer {
  reference: string;
  transaction_id: string;
  rail: OutboundTransfer['rail'];
  block: number | null;
  settles_at_ms: number;
  outcome: 'confirmed' | 'failed' | 'dropped';
  reason: string | null;
}

/**
 * The simulated outside world of money: a fake chain for ethereum, base and solana (blocks on the
 * service clock, a transaction hash per transfer, confirmation after 24 s, 4 s and 1 s) and a
 * simulated bank (pending for 24 hours). Whether a transfer will fail is decided when it is taken,
 * from the `chain.submit` and `bank.submit` faults (`fail`: it ends `failed` with the fault's
 * reason; `delay`: it settles `delay_seconds` later; `drop`: it stays `pending`); everything lives
 * in the store, so snapshots and restores carry the world's decisions too. The wallet's failure
 * rules (`/_sim/wallet/failures`) are a shorthand that creates such faults.
 */
@injectable()
export class SimPaymentRails implements PaymentRails, RailFaults {
  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    @inject(Random) private readonly random: Random,
    @inject(Faults) private readonly faults: Faults,
    @inject(FaultService) private readonly faultControl: FaultService,
  ) {}

  async submit(tx: StoreTransaction, transfer: OutboundTransfer): Promise<RailSubmission> {
    const nowMs = this.clock.now();
    const chain = transfer.rail === 'iban' || transfer.rail === 'aba' ? undefined : transfer.rail;
    const target = chain ? 'chain.submit' : 'bank.submit';
    const struck = (await this.faults.armed(tx, target))
      ? await this.faults.strike(tx, target, {
          agent_id: transfer.from_agent_id,
          fields: { transaction_id: transfer.transaction_id, rail: transfer.rail, asset: transfer.asset, amount: transfer.amount, to: transfer.to },
        })
      : null;
    const bytes = (n: number) => this.random.bytes(n);
    const record: SimTransfer = {
      reference: chain ? transactionHash(chain, bytes) : bankReference(transfer.rail as 'iban' | 'aba', bytes),
      transaction_id: transfer.transaction_id,
      rail: transfer.rail,
      block: chain ? blockAt(chain, nowMs) : null,
      settles_at_ms: nowMs + (chain ? CHAIN_TIMING[chain].confirmMs : BANK_SETTLE_MS) + (struck?.effect === 'delay' ? struck.delay_ms : 0),
      outcome: struck?.effect === 'fail' ? 'failed' : struck?.effect === 'drop' ? 'dropped' : 'confirmed',
      reason: struck?.effect === 'fail' ? (struck.error_code ?? 'simulated failure') : null,
    };
    await tx.insert(TRANSFERS, record.reference, record);
    return { reference: record.reference, block: record.block, check_at_ms: record.settles_at_ms };
  }

  async check(reference: string): Promise<RailSettlement> {
    const transfer = await this.store.view.get<SimTransfer>(TRANSFERS, reference);
    if (!transfer) return { status: 'failed', reason: 'unknown transfer' };
    if (this.clock.now() < transfer.settles_at_ms) return { status: 'pending', check_at_ms: transfer.settles_at_ms };
    if (transfer.outcome === 'dropped') return { status: 'pending', check_at_ms: this.clock.now() + DROPPED_RECHECK_MS };
    return transfer.outcome === 'confirmed' ? { status: 'confirmed' } : { status: 'failed', reason: transfer.reason ?? 'failed' };
  }

  /**
   * The shorthand of `/_sim/wallet/failures`: `next` makes one `fail` fault on each rail target,
   * used up together by the first send they hit; `recipient` makes a `fail` fault matching that
   * recipient on its rail. The rule id is the (first) fault's id.
   * @throws ApiError 400 invalid_recipient (recipient)
   */
  async addFailure(body: WalletFailureBody): Promise<WalletFailureRule> {
    const reason = body.reason ?? 'simulated failure';
    if (body.recipient === undefined) {
      const [first] = await this.faultControl.addGroup(RAIL_TARGETS.map((target) => ({ target, effect: 'fail' as const, count: 1, error_code: reason })));
      return { rule_id: first!.fault_id, recipient: null, remaining: 1, reason };
    }
    const parsed = parseRecipient(body.recipient);
    if (!parsed || !isExternal(parsed)) {
      throw new ApiError('invalid_recipient', 'recipient: must be an address or bank account (book transfers never fail)', 'recipient');
    }
    const recipient = recipientKey(parsed);
    const target = parsed.kind === 'iban' || parsed.kind === 'aba' ? 'bank.submit' : 'chain.submit';
    const fault = await this.faultControl.add({ target, effect: 'fail', match: { to: recipient }, error_code: reason });
    return { rule_id: fault.fault_id, recipient, remaining: null, reason };
  }

  /** Removes every `chain.submit` and `bank.submit` fault. */
  async clearFailures(): Promise<void> {
    await this.faultControl.clear(RAIL_TARGETS);
  }
}
