import type { SolanaBlockRef, SolanaLedger, SolanaScan } from './solana-ledger.js';

/**
 * A {@link SolanaLedger} whose adapter is made later (imported on demand): LiteSVM is a native
 * package, loaded only when solana runs `local`. Every call waits for the adapter.
 */
export class DeferredSolanaLedger implements SolanaLedger {
  readonly ready: Promise<void>;
  private inner: SolanaLedger | undefined;
  private readonly made: Promise<SolanaLedger>;

  constructor(
    readonly isLocal: boolean,
    make: () => Promise<SolanaLedger>,
  ) {
    this.made = make().then((ledger) => (this.inner = ledger));
    this.ready = this.made.then((ledger) => ledger.ready);
    this.ready.catch(() => undefined);
  }

  usdcMint(): string {
    if (!this.inner) throw new Error('solana is not ready yet');
    return this.inner.usdcMint();
  }

  private async ledger(): Promise<SolanaLedger> {
    await this.ready;
    return this.inner!;
  }

  async slot(): Promise<bigint> {
    return (await this.ledger()).slot();
  }

  async blockHeight(): Promise<bigint> {
    return (await this.ledger()).blockHeight();
  }

  async block(slot: bigint): Promise<SolanaBlockRef | null> {
    return (await this.ledger()).block(slot);
  }

  async rentExemptMinimum(): Promise<bigint> {
    return (await this.ledger()).rentExemptMinimum();
  }

  async blockhash(): Promise<{ blockhash: string; lastValidBlockHeight: bigint }> {
    return (await this.ledger()).blockhash();
  }

  async sendWire(wire: string): Promise<void> {
    return (await this.ledger()).sendWire(wire);
  }

  async status(signature: string): Promise<{ slot: bigint; success: boolean } | null> {
    return (await this.ledger()).status(signature);
  }

  async scan(from: bigint, to: bigint, isCustody: (owner: string) => Promise<boolean>): Promise<SolanaScan> {
    return (await this.ledger()).scan(from, to, isCustody);
  }

  async holdings(owners: readonly string[]): Promise<{ sol: bigint; usdc: bigint }> {
    return (await this.ledger()).holdings(owners);
  }

  async catchUp(nowMs: number): Promise<void> {
    return (await this.ledger()).catchUp(nowMs);
  }

  async faucetDeposit(asset: 'sol' | 'usdc', amount: bigint, to: string): Promise<string> {
    return (await this.ledger()).faucetDeposit(asset, amount, to);
  }

  async close(): Promise<void> {
    const ledger = await this.made.catch(() => undefined);
    await ledger?.close();
  }
}
