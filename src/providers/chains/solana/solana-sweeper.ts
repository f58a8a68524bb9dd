import type { KeyPairSigner } from '@solana/kit';
import type { Store, StoreTransaction } from '../../../core/ports/store.js';
import type { HdCustodyKeys } from '../../custody/hd-custody-keys.js';
import type { SolanaLedger } from './solana-ledger.js';
import { signerOf, signWire, transferInstructions } from './solana-transactions.js';

/** Sweeps waiting or under way, by deposit key (the EVM sweeper's collection: records carry their network). */
const SWEEPS = 'chain_sweeps';

/** One credited deposit being moved from an agent's address to the hot wallet. */
interface SolanaSweep {
  key: string;
  network: 'solana';
  index: number;
  asset: 'sol' | 'usdc';
  amount: string;
  /** `new`: nothing signed (or its blockhash expired unlanded); `sent`: signed, stored, sent; `failed`: it failed on chain (left for the operator). */
  stage: 'new' | 'sent' | 'failed';
  wire: string | null;
  signature: string | null;
  last_valid_block_height: string | null;
  reason: string | null;
}

/**
 * Moves credited deposits on solana from agents' addresses to the hot wallet, which pays every
 * send. The hot wallet is the fee payer of each sweep, so an agent's address needs no SOL for
 * fees: SOL moves whole, usdc moves from the agent's token account into the hot wallet's (created
 * when missing, idempotently, paid by the hot wallet). An account may hold no lamports or at least
 * the rent-exempt minimum: a SOL sweep that would leave less than that takes the rest too. Each
 * signed sweep is stored before it is sent and sent again until it lands; one whose blockhash
 * expired unlanded is signed again (it can no longer land). Runs on each poll.
 */
export class SolanaSweeper {
  constructor(
    private readonly ledger: SolanaLedger,
    private readonly store: Store,
    private readonly keys: HdCustodyKeys,
    private readonly hot: Promise<KeyPairSigner>,
  ) {}

  /** Queues the sweep of a credited deposit. */
  async add(key: string, index: number, asset: 'sol' | 'usdc', amount: bigint): Promise<void> {
    await this.store.transaction(async (tx) => {
      if (await tx.get(SWEEPS, key)) return;
      const record: SolanaSweep = { key, network: 'solana', index, asset, amount: String(amount), stage: 'new', wire: null, signature: null, last_valid_block_height: null, reason: null };
      await tx.insert(SWEEPS, key, record);
    });
  }

  /** Moves every solana sweep one step on. */
  async run(): Promise<void> {
    for (const sweep of await this.store.view.all<SolanaSweep>(SWEEPS)) {
      if (sweep.network === 'solana' && sweep.stage !== 'failed') await this.step(sweep);
    }
  }

  private async step(sweep: SolanaSweep): Promise<void> {
    if (sweep.stage === 'sent') {
      // The height first: a transaction not landed once the chain is past its last valid height never will.
      const height = await this.ledger.blockHeight();
      const landed = await this.ledger.status(sweep.signature!);
      if (landed?.success) await this.moveOn(sweep, (tx) => tx.remove(SWEEPS, sweep.key));
      else if (landed) await this.moveOn(sweep, (tx) => tx.update(SWEEPS, sweep.key, { ...sweep, stage: 'failed', reason: 'failed on chain' }));
      else if (height > BigInt(sweep.last_valid_block_height!)) await this.moveOn(sweep, (tx) => tx.update(SWEEPS, sweep.key, { ...sweep, stage: 'new', wire: null, signature: null }));
      else await this.ledger.sendWire(sweep.wire!).catch(() => undefined);
      return;
    }
    const agent = await signerOf(this.keys.solanaKey(sweep.index).privateKey);
    const amount = await this.amount(sweep, agent.address);
    if (amount <= 0n) {
      // Already moved (a sweep before it took the rest): nothing left to do.
      await this.store.transaction((tx) => tx.remove(SWEEPS, sweep.key).then(() => undefined));
      return;
    }
    const hot = await this.hot;
    const lifetime = await this.ledger.blockhash();
    const instructions = await transferInstructions(agent, sweep.asset, amount, hot.address, this.ledger.usdcMint(), hot);
    const signed = await signWire(hot, instructions, lifetime);
    const sent: SolanaSweep = { ...sweep, stage: 'sent', wire: signed.wire, signature: signed.signature, last_valid_block_height: String(lifetime.lastValidBlockHeight) };
    // Stored only if the sweep is still the one read: another process polling the same world may
    // have signed it meanwhile, and then its bytes, not these, are the sweep.
    const stored = await this.moveOn(sweep, (tx) => tx.update(SWEEPS, sweep.key, sent));
    if (stored) await this.ledger.sendWire(signed.wire).catch(() => undefined);
  }

  /**
   * Applies `change` when the sweep is still the one read (same stage and signature), answering
   * whether it did: another process polling the same world may have moved it on meanwhile (signed
   * it, or signed it again after its blockhash expired), and a step taken from the stale record
   * would undo that one, leaving two transactions of the same sweep in flight.
   */
  private moveOn(sweep: SolanaSweep, change: (tx: StoreTransaction) => Promise<unknown>): Promise<boolean> {
    return this.store.transaction(async (tx) => {
      const now = await tx.get<SolanaSweep>(SWEEPS, sweep.key);
      if (now?.stage !== sweep.stage || now.signature !== sweep.signature) return false;
      await change(tx);
      return true;
    });
  }

  /** What to move: the deposit's amount as far as the address still holds it; SOL dust under the rent-exempt minimum goes with it. */
  private async amount(sweep: SolanaSweep, owner: string): Promise<bigint> {
    const held = await this.ledger.holdings([owner]);
    const balance = sweep.asset === 'sol' ? held.sol : held.usdc;
    const wanted = BigInt(sweep.amount) < balance ? BigInt(sweep.amount) : balance;
    if (sweep.asset === 'usdc') return wanted;
    const rest = balance - wanted;
    return rest > 0n && rest < (await this.ledger.rentExemptMinimum()) ? balance : wanted;
  }
}
