import type { Hex } from 'viem';
import type { Store, StoreTransaction } from '../../../core/ports/store.js';
import type { HdCustodyKeys } from '../../custody/hd-custody-keys.js';
import type { EvmNetwork } from './evm-network.js';
import { allocateNonce } from './evm-rails.js';

/** Sweeps waiting or under way, by deposit key. */
const SWEEPS = 'chain_sweeps';

/** One deposit being moved from an agent's address to the hot wallet. */
interface SweepRecord {
  key: string;
  network: 'ethereum' | 'base';
  index: number;
  asset: 'eth' | 'usdc';
  amount: string;
  /** `new`: nothing sent; `gas`: the hot wallet sent gas money (usdc only); `sent`: the sweep itself is signed and sent. */
  stage: 'new' | 'gas' | 'sent';
  gas_hash: Hex | null;
  gas_raw: Hex | null;
  raw: Hex | null;
  hash: Hex | null;
}

/**
 * Moves confirmed deposits from agents' addresses to the hot wallet, which pays every send: ETH
 * minus its gas straight away; usdc after the hot wallet has sent the agent's address the gas for
 * it (a nonce from the store, like any hot-wallet transaction), then the token transfer signed by
 * the agent's key. Every signed transaction is stored before it is broadcast and broadcast again
 * until it is in a block, so a crash repeats bytes, never a transfer. Runs on each poll.
 */
export class EvmSweeper {
  constructor(
    private readonly network: EvmNetwork,
    private readonly store: Store,
    private readonly keys: HdCustodyKeys,
  ) {}

  /** Queues the sweep of a credited deposit. */
  async add(key: string, index: number, asset: 'eth' | 'usdc', amount: bigint): Promise<void> {
    await this.store.transaction(async (tx) => {
      if (await tx.get(SWEEPS, key)) return;
      const record: SweepRecord = { key, network: this.network.name, index, asset, amount: String(amount), stage: 'new', gas_hash: null, gas_raw: null, raw: null, hash: null };
      await tx.insert(SWEEPS, key, record);
    });
  }

  /** Moves every sweep of this network one step on. */
  async run(): Promise<void> {
    for (const sweep of await this.store.view.all<SweepRecord>(SWEEPS)) {
      if (sweep.network !== this.network.name) continue;
      await this.step(sweep);
    }
  }

  private async step(sweep: SweepRecord): Promise<void> {
    const network = this.network;
    const agent = this.keys.evmAccount(sweep.index);
    if (sweep.stage === 'sent') {
      if (await network.receipt(sweep.hash!)) await this.store.transaction((tx) => tx.remove(SWEEPS, sweep.key).then(() => undefined));
      else await network.broadcast(sweep.raw!).catch(() => undefined);
      return;
    }
    if (sweep.asset === 'eth' || sweep.stage === 'gas') {
      if (sweep.stage === 'gas' && !(await network.receipt(sweep.gas_hash!))) {
        await network.broadcast(sweep.gas_raw!).catch(() => undefined);
        return;
      }
      const amount = sweep.asset === 'eth' ? BigInt(sweep.amount) - network.gasCost('eth') : BigInt(sweep.amount);
      if (amount <= 0n || (sweep.asset === 'usdc' && (await network.ethBalance(agent.address)) < network.gasCost('usdc'))) return;
      const signed = await network.sign(await network.nonceOf(agent.address), sweep.asset, network.hotAddress, amount, agent);
      const stored = await this.store.transaction(async (tx) => {
        if (!(await this.unchanged(tx, sweep))) return false;
        await tx.update(SWEEPS, sweep.key, { ...sweep, stage: 'sent', raw: signed.raw, hash: signed.hash });
        return true;
      });
      if (stored) await network.broadcast(signed.raw).catch(() => undefined);
      return;
    }
    // usdc: the hot wallet sends the agent's address its gas first.
    let gas: { raw: Hex; hash: Hex } | undefined;
    await this.store.transaction(async (tx) => {
      if (!(await this.unchanged(tx, sweep))) return;
      const nonce = await allocateNonce(tx, network);
      gas = await network.sign(nonce, 'eth', agent.address, network.gasCost('usdc'));
      await tx.update(SWEEPS, sweep.key, { ...sweep, stage: 'gas', gas_hash: gas.hash, gas_raw: gas.raw });
    });
    if (gas) await network.broadcast(gas.raw).catch(() => undefined);
  }

  /**
   * Whether the sweep is still at the stage `sweep` was read at, read again in `tx`: another
   * poller of the same world (another process) may have moved it on meanwhile, and only one of
   * them may sign its next step (on a shared store the read also makes a concurrent step a
   * conflict, so the loser runs again and finds it moved).
   */
  private async unchanged(tx: StoreTransaction, sweep: SweepRecord): Promise<boolean> {
    return (await tx.get<SweepRecord>(SWEEPS, sweep.key))?.stage === sweep.stage;
  }
}
