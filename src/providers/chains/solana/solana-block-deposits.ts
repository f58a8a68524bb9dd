import type { ObservedDeposit } from '../../../core/ports/chain-networks.js';

/** A token balance of a transaction's meta (`preTokenBalances` / `postTokenBalances`). */
interface TokenBalance {
  accountIndex: number;
  mint: string;
  /** Absent in answers of nodes older than 1.9. */
  owner?: string;
  uiTokenAmount: { amount: string };
}

/** A transaction of `getBlock` with full details, in `json` (keys as strings) or `jsonParsed` (keys as objects) encoding. */
interface BlockTransaction {
  transaction: { signatures: string[]; message: { accountKeys: Array<string | { pubkey: string }> } };
  meta: {
    err: unknown;
    preBalances: Array<bigint | number>;
    postBalances: Array<bigint | number>;
    preTokenBalances?: TokenBalance[] | null;
    postTokenBalances?: TokenBalance[] | null;
    /** Accounts a version-0 transaction loaded from lookup tables (`json` encoding): their balances follow the static keys'. */
    loadedAddresses?: { writable: string[]; readonly: string[] } | null;
  } | null;
}

/**
 * The transfers into custody owners that one block's transactions made, read from the balance
 * changes the node reports (no instruction decoding): lamports gained by a custody account, and
 * usdc gained by a custody owner in any token account of the mint. Failed transactions moved
 * nothing but their fee. `from` is the owner whose usdc fell (for usdc), else the fee payer.
 */
export async function depositsInBlock(
  block: { blockhash: string; transactions?: readonly unknown[] | null },
  slot: bigint,
  mint: string | null,
  isCustody: (owner: string) => Promise<boolean>,
): Promise<ObservedDeposit[]> {
  const found: ObservedDeposit[] = [];
  for (const entry of (block.transactions ?? []) as BlockTransaction[]) {
    const meta = entry.meta;
    if (!meta || meta.err !== null) continue;
    const reference = entry.transaction.signatures[0]!;
    // Static keys first, then (json encoding, version 0) the writable and read-only loaded ones: the order of the balance arrays.
    const keys = entry.transaction.message.accountKeys.map((key) => (typeof key === 'string' ? key : key.pubkey));
    if (meta.loadedAddresses && keys.length < meta.postBalances.length) keys.push(...meta.loadedAddresses.writable, ...meta.loadedAddresses.readonly);
    const base = { reference, block: Number(slot), block_hash: block.blockhash, from: keys[0]! };
    for (let i = 0; i < keys.length && i < meta.postBalances.length; i++) {
      const gained = BigInt(meta.postBalances[i]!) - BigInt(meta.preBalances[i]!);
      if (gained > 0n && (await isCustody(keys[i]!))) found.push({ ...base, key: `${reference}:sol:${keys[i]}`, to: keys[i]!, asset: 'sol', amount: gained });
    }
    if (!mint) continue;
    const pre = (meta.preTokenBalances ?? []).filter((balance) => balance.mint === mint);
    const post = (meta.postTokenBalances ?? []).filter((balance) => balance.mint === mint);
    const before = (index: number) => BigInt(pre.find((balance) => balance.accountIndex === index)?.uiTokenAmount.amount ?? '0');
    const sender = post.find((balance) => balance.owner && BigInt(balance.uiTokenAmount.amount) < before(balance.accountIndex))?.owner;
    // Per owner: an owner may hold the mint in more than one token account.
    const gains = new Map<string, bigint>();
    for (const balance of post) {
      const gained = BigInt(balance.uiTokenAmount.amount) - before(balance.accountIndex);
      if (balance.owner && gained > 0n) gains.set(balance.owner, (gains.get(balance.owner) ?? 0n) + gained);
    }
    for (const [owner, amount] of gains) {
      if (await isCustody(owner)) found.push({ ...base, from: sender ?? base.from, key: `${reference}:usdc:${owner}`, to: owner, asset: 'usdc', amount });
    }
  }
  return found;
}
