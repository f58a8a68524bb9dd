import { address, createSolanaRpc, createSolanaRpcFromTransport, signature as toSignature, type Base64EncodedWireTransaction, type RpcTransport } from '@solana/kit';
import type { ObservedDeposit } from '../../../core/ports/chain-networks.js';
import type { SolanaLedger } from './solana-ledger.js';
import { usdcAccountOf } from './solana-transactions.js';

/** A transaction of `getBlock` (json encoding) as far as deposits need it. */
interface BlockTransaction {
  transaction: { signatures: string[]; message: { accountKeys: string[] } };
  meta: {
    err: unknown;
    preBalances: Array<bigint | number>;
    postBalances: Array<bigint | number>;
    preTokenBalances?: TokenBalance[];
    postTokenBalances?: TokenBalance[];
  } | null;
}

interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  uiTokenAmount: { amount: string };
}

/**
 * A Solana cluster over JSON-RPC through `@solana/kit` (devnet, mainnet, a node of your own):
 * slots and blockhashes, raw transactions sent, signature statuses, and deposits read from each
 * block's balance changes (lamports of custody owners; usdc token balances by owner), never a
 * query per address.
 */
export class RpcSolana implements SolanaLedger {
  readonly isLocal = false;
  readonly ready = Promise.resolve();
  private readonly rpc;

  /** `transport` replaces HTTP (tests give recorded answers). */
  constructor(
    url: string,
    private readonly mint: string | null,
    transport?: RpcTransport,
  ) {
    this.rpc = transport ? createSolanaRpcFromTransport(transport) : createSolanaRpc(url);
  }

  usdcMint(): string {
    if (!this.mint) throw new Error('solana: no usdc mint (give --usdc solana=MINT)');
    return this.mint;
  }

  async slot(): Promise<bigint> {
    return this.rpc.getSlot({ commitment: 'confirmed' }).send();
  }

  async blockhash(): Promise<{ blockhash: string; lastValidBlockHeight: bigint }> {
    const { value } = await this.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
    return { blockhash: value.blockhash, lastValidBlockHeight: value.lastValidBlockHeight };
  }

  async sendWire(wire: string): Promise<void> {
    try {
      await this.rpc.sendTransaction(wire as Base64EncodedWireTransaction, { encoding: 'base64', preflightCommitment: 'confirmed' }).send();
    } catch (error) {
      // The same bytes again after a restart: the cluster already has them.
      if (/already (been )?processed/i.test(String((error as Error).message))) return;
      throw error;
    }
  }

  async status(signature: string): Promise<{ slot: bigint; success: boolean } | null> {
    const { value } = await this.rpc.getSignatureStatuses([toSignature(signature)], { searchTransactionHistory: true }).send();
    const found = value[0];
    if (!found || found.confirmationStatus === 'processed') return null;
    return { slot: found.slot, success: found.err === null };
  }

  async transfersTo(from: bigint, to: bigint, isCustody: (owner: string) => Promise<boolean>): Promise<ObservedDeposit[]> {
    const found: ObservedDeposit[] = [];
    for (let slot = from; slot <= to; slot++) {
      let block;
      try {
        block = await this.rpc.getBlock(slot, { commitment: 'confirmed', encoding: 'json', transactionDetails: 'full', rewards: false, maxSupportedTransactionVersion: 0 }).send();
      } catch {
        continue; // a skipped slot has no block
      }
      if (!block) continue;
      for (const entry of block.transactions as unknown as BlockTransaction[]) {
        if (!entry.meta || entry.meta.err !== null) continue;
        const reference = entry.transaction.signatures[0]!;
        const keys = entry.transaction.message.accountKeys.map(String);
        const base = { reference, block: Number(slot), block_hash: String(block.blockhash), from: keys[0]! };
        for (let i = 0; i < keys.length; i++) {
          const gained = BigInt(entry.meta.postBalances[i]!) - BigInt(entry.meta.preBalances[i]!);
          if (gained > 0n && (await isCustody(keys[i]!))) found.push({ ...base, key: `${reference}:sol:${keys[i]}`, to: keys[i]!, asset: 'sol', amount: gained });
        }
        if (!this.mint) continue;
        for (const post of entry.meta.postTokenBalances ?? []) {
          if (post.mint !== this.mint || !post.owner) continue;
          const pre = (entry.meta.preTokenBalances ?? []).find((balance) => balance.accountIndex === post.accountIndex);
          const gained = BigInt(post.uiTokenAmount.amount) - BigInt(pre?.uiTokenAmount.amount ?? '0');
          if (gained > 0n && (await isCustody(post.owner))) found.push({ ...base, key: `${reference}:usdc:${post.owner}`, to: post.owner, asset: 'usdc', amount: gained });
        }
      }
    }
    return found;
  }

  async holdings(owners: readonly string[]): Promise<{ sol: bigint; usdc: bigint }> {
    let sol = 0n;
    let usdc = 0n;
    for (const owner of owners) {
      sol += (await this.rpc.getBalance(address(owner), { commitment: 'confirmed' }).send()).value;
      if (!this.mint) continue;
      try {
        usdc += BigInt((await this.rpc.getTokenAccountBalance(await usdcAccountOf(owner, this.mint), { commitment: 'confirmed' }).send()).value.amount);
      } catch {
        // No token account yet: it holds no usdc.
      }
    }
    return { sol, usdc };
  }

  async catchUp(): Promise<void> {}

  async faucetDeposit(): Promise<string> {
    throw new Error('solana runs over JSON-RPC: deposits come from the cluster itself');
  }

  async close(): Promise<void> {}
}
