import { randomUUID } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { LiteSVM, TransactionMetadata } from 'litesvm';
import {
  address,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  lamports,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Transaction,
} from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import { getCreateAssociatedTokenIdempotentInstruction, getInitializeMint2Instruction, getMintSize, getMintToInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { signWire, signerOf, transferInstructions, usdcAccountOf } from './solana-transactions.js';
import type { ObservedDeposit } from '../../../core/ports/chain-networks.js';
import type { SolanaBlockRef, SolanaLedger, SolanaScan } from './solana-ledger.js';

/** LiteSVM's airdrop source holds a limited amount: 10^4 SOL to the faucet, 10^3 to the hot wallet. */
const FAUCET_LAMPORTS = 10n ** 13n;
const HOT_LAMPORTS = 10n ** 12n;
/** usdc minted to the faucet (10^9) and to the hot wallet as its float (10^6). */
const FAUCET_USDC = 10n ** 15n;
const HOT_USDC = 10n ** 12n;

/** How many slots after its own a blockhash stays valid (a cluster counts 150 blocks; every local slot makes one). */
const BLOCKHASH_SLOTS = 150n;

/** A transfer into an account, as the local chain recorded it when it processed the transaction. */
interface Landed {
  slot: bigint;
  success: boolean;
  deposits: Array<Omit<ObservedDeposit, 'block' | 'block_hash'>>;
}

/**
 * A Solana chain inside the process (LiteSVM): the faucet and hot wallet funded, a usdc mint
 * created and minted, slots made on the service clock (one every 400 ms). LiteSVM processes a
 * transaction at once, in the current slot; this adapter keeps what each transaction it processed
 * did to custody owners (their SOL and usdc balance changes), which is what the poller reads back.
 */
export class LocalSolana implements SolanaLedger {
  readonly isLocal = true;
  readonly ready: Promise<void>;
  /**
   * LiteSVM takes only its latest blockhash; a cluster takes any of the last 150 blocks'. The
   * adapter checks that window itself ({@link issued}), so a transaction signed a slot ago lands
   * as it would on a cluster, and one past its last valid height is refused as it would be.
   */
  private readonly svm = new LiteSVM().withBlockhashCheck(false);
  /** Each blockhash handed out, with the slot it was made in (valid for 150 slots after it). */
  private readonly issued = new Map<string, bigint>();
  private faucet!: KeyPairSigner;
  private mint!: KeyPairSigner;
  private readonly landed = new Map<string, Landed>();
  private readonly bySlot = new Map<bigint, string[]>();
  private readonly baseSlot: bigint;
  /** Tells this chain from the one a previous start made (both begin at slot 0). */
  private readonly instance = randomUUID().slice(0, 8);
  private current = 0n;

  constructor(private readonly options: { hotWallet: string; nowMs: number; slotMs: number }) {
    this.baseSlot = this.svm.getClock().slot;
    this.ready = this.setUp();
    this.ready.catch(() => undefined);
  }

  usdcMint(): string {
    return this.mint.address;
  }

  async slot(): Promise<bigint> {
    await this.ready;
    return this.current;
  }

  async blockhash(): Promise<{ blockhash: string; lastValidBlockHeight: bigint }> {
    await this.ready;
    const blockhash = this.svm.latestBlockhash();
    return { blockhash, lastValidBlockHeight: (this.issued.get(blockhash) ?? this.current) + BLOCKHASH_SLOTS };
  }

  async sendWire(wire: string): Promise<void> {
    await this.ready;
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(wire)) as Transaction;
    const signature = getSignatureFromTransaction(transaction);
    if (this.landed.has(signature)) return;
    this.process(transaction, signature, []);
  }

  async status(signature: string): Promise<{ slot: bigint; success: boolean } | null> {
    await this.ready;
    const landed = this.landed.get(signature);
    return landed && landed.slot <= this.current ? { slot: landed.slot, success: landed.success } : null;
  }

  async scan(from: bigint, to: bigint, isCustody: (owner: string) => Promise<boolean>): Promise<SolanaScan> {
    await this.ready;
    const deposits: ObservedDeposit[] = [];
    const blocks: SolanaBlockRef[] = [];
    for (let slot = from; slot <= to && slot <= this.current; slot++) {
      blocks.push(this.blockAt(slot));
      for (const signature of this.bySlot.get(slot) ?? []) {
        const landed = this.landed.get(signature)!;
        if (!landed.success) continue;
        for (const deposit of landed.deposits) if (await isCustody(deposit.to)) deposits.push({ ...deposit, block: Number(slot), block_hash: this.blockAt(slot).hash });
      }
    }
    return { deposits, blocks };
  }

  async blockHeight(): Promise<bigint> {
    await this.ready;
    return this.current;
  }

  async block(slot: bigint): Promise<SolanaBlockRef | null> {
    await this.ready;
    return slot <= this.current ? this.blockAt(slot) : null;
  }

  async rentExemptMinimum(): Promise<bigint> {
    await this.ready;
    return this.svm.minimumBalanceForRentExemption(0n);
  }

  /**
   * Every slot of the local chain makes a block (it has no forks); its hash names this chain and
   * the slot, so a block of the chain before a restart is not taken for one of this chain.
   */
  private blockAt(slot: bigint): SolanaBlockRef {
    return { slot, hash: `local-${this.instance}:${slot}`, parentSlot: slot - 1n, previousHash: `local-${this.instance}:${slot - 1n}` };
  }

  async holdings(owners: readonly string[]): Promise<{ sol: bigint; usdc: bigint }> {
    await this.ready;
    const accounts = await Promise.all(owners.map((owner) => usdcAccountOf(owner, this.mint.address)));
    // Read in one synchronous pass: a sweep processed between two reads would be counted twice or not at all.
    let sol = 0n;
    let usdc = 0n;
    for (const owner of owners) sol += this.svm.getBalance(address(owner)) ?? 0n;
    for (const account of accounts) usdc += this.tokenBalance(account);
    return { sol, usdc };
  }

  async catchUp(nowMs: number): Promise<void> {
    await this.ready;
    const due = BigInt(Math.max(0, Math.floor((nowMs - this.options.nowMs) / this.options.slotMs)));
    if (due <= this.current) return;
    this.current = due;
    this.svm.warpToSlot(this.baseSlot + due);
    this.svm.expireBlockhash();
    this.issued.set(this.svm.latestBlockhash(), due);
    for (const [hash, slot] of this.issued) if (slot + BLOCKHASH_SLOTS < due) this.issued.delete(hash);
  }

  async faucetDeposit(asset: 'sol' | 'usdc', amount: bigint, to: string): Promise<string> {
    await this.ready;
    const instructions = await transferInstructions(this.faucet, asset, amount, to, this.mint.address);
    const { wire, signature } = await signWire(this.faucet, instructions, await this.blockhash());
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(wire)) as Transaction;
    this.process(transaction, signature, [{ key: signature, reference: signature, from: this.faucet.address, to, asset, amount }]);
    if (!this.landed.get(signature)!.success) throw new Error('the local faucet transfer failed (too little to open an account? a new address needs about 0.001 SOL)');
    return signature;
  }

  async close(): Promise<void> {
    await this.ready.catch(() => undefined);
  }

  /**
   * Processes a transaction into the slot being made (the next one: it is seen once the service
   * clock makes that slot, so a poller that already read the current slot misses nothing).
   * Deposits are the balance changes of the receivers named: for the faucet's transfers the adapter
   * knows them; a hot-wallet send pays outside addresses.
   */
  private process(transaction: Transaction, signature: string, deposits: Landed['deposits']): void {
    const { lifetimeToken } = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
    const issuedAt = this.issued.get(lifetimeToken);
    if (issuedAt === undefined || this.current > issuedAt + BLOCKHASH_SLOTS) throw new Error('local solana: blockhash not found (expired, or never made by this chain)');
    const result = this.svm.sendTransaction(transaction);
    const slot = this.current + 1n;
    this.landed.set(signature, { slot, success: result instanceof TransactionMetadata, deposits });
    const list = this.bySlot.get(slot) ?? [];
    list.push(signature);
    this.bySlot.set(slot, list);
  }

  private tokenBalance(account: Address): bigint {
    const found = this.svm.getAccount(account);
    if (!found.exists || found.data.length < 72) return 0n;
    return new DataView(found.data.buffer, found.data.byteOffset + 64, 8).getBigUint64(0, true);
  }

  private async setUp(): Promise<void> {
    this.faucet = await signerOf(sha256(new TextEncoder().encode('agent-services local solana faucet')));
    this.mint = await signerOf(sha256(new TextEncoder().encode('agent-services local solana usdc')));
    this.svm.airdrop(this.faucet.address, lamports(FAUCET_LAMPORTS));
    this.svm.airdrop(address(this.options.hotWallet), lamports(HOT_LAMPORTS));
    const space = BigInt(getMintSize());
    const setup = async (instructions: Instruction[]) => {
      const { wire } = await signWire(this.faucet, instructions, { blockhash: this.svm.latestBlockhash(), lastValidBlockHeight: 150n });
      const result = this.svm.sendTransaction(getTransactionDecoder().decode(getBase64Encoder().encode(wire)) as Transaction);
      if (!(result instanceof TransactionMetadata)) throw new Error(`local solana set-up failed: ${String(result.err())}`);
    };
    await setup([
      getCreateAccountInstruction({ payer: this.faucet, newAccount: this.mint, lamports: this.svm.minimumBalanceForRentExemption(space), space, programAddress: TOKEN_PROGRAM_ADDRESS }),
      getInitializeMint2Instruction({ mint: this.mint.address, decimals: 6, mintAuthority: this.faucet.address }),
    ]);
    const mintTo = async (owner: string, amount: bigint) => {
      const ata = await usdcAccountOf(owner, this.mint.address);
      await setup([
        getCreateAssociatedTokenIdempotentInstruction({ payer: this.faucet, ata, owner: address(owner), mint: this.mint.address }),
        getMintToInstruction({ mint: this.mint.address, token: ata, mintAuthority: this.faucet, amount }),
      ]);
    };
    await mintTo(this.faucet.address, FAUCET_USDC);
    await mintTo(this.options.hotWallet, HOT_USDC);
    this.svm.expireBlockhash();
    this.issued.set(this.svm.latestBlockhash(), 0n);
  }
}
