/**
 * A scripted Solana JSON-RPC node for tests: a chain of blocks the test builds, forks and skips,
 * answered over HTTP in the shapes of the recorded answers (fixtures/solana-rpc-recorded.json).
 * It executes nothing: a transaction is what the test puts in a block. Enough for the poller's
 * view of forks, which no local chain (LiteSVM has none) can show.
 */
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { chainWorld, type ChainStore, type ChainWorld } from './chain-world.js';

/** A block as the node keeps it. */
interface Block {
  slot: number;
  hash: string;
  parentSlot: number;
  previousHash: string;
  height: number;
  transactions: unknown[];
}

const SYSTEM_PROGRAM = '11111111111111111111111111111111';
/** A sender outside custody. */
export const OUTSIDE_SENDER = base58.encode(new Uint8Array(32).fill(7));

export interface ForkNode {
  url: string;
  /** The canonical chain's head slot. */
  head(): number;
  /** A block at the next slot (or `at`), built on the last block of the chain; answers its slot. */
  block(transactions?: unknown[], at?: number): number;
  /** Drops every block from `slot` on (a fork the cluster abandoned): those slots answer "skipped". */
  dropFrom(slot: number): void;
  /** The next getBlock of `slot` answers "not available" (a node that has not got the block yet). */
  notAvailableOnce(slot: number): void;
  /** Whether `sendTransaction` takes transactions (they land in the next block); when not, it answers BlockhashNotFound. */
  accepting: boolean;
  /** Signatures `sendTransaction` was given, taken or not. */
  readonly sent: string[];
  /** A SOL transfer from outside to `to` (a transaction in the json encoding of getBlock). */
  solTransfer(to: string, lamports: number, signature?: string): { signature: string; transaction: unknown };
  close(): Promise<void>;
}

/** Devnet's usdc mint (no usdc moves on the scripted node). */
const DEVNET_USDC_MINT = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';

/**
 * A world whose solana runs over JSON-RPC against `node` (deposits credited at depth 3), answering
 * once its chains have started (cursor set at the node's head).
 */
export async function forkNodeWorld(node: ForkNode, store: ChainStore): Promise<ChainWorld> {
  const world = await chainWorld({ wallet: { chains: { solana: node.url }, usdc: { solana: DEVNET_USDC_MINT }, confirmations: { solana: 3 } } }, store);
  await world.sim.chainHoldings({ network: 'solana' });
  return world;
}

/** Starts the node on a free port with blocks at slots 1..`start`. */
export async function startForkNode(start = 10): Promise<ForkNode> {
  const blocks = new Map<number, Block>();
  /** Transactions sent and taken, waiting for the next block. */
  const mempool: unknown[] = [];
  const sent: string[] = [];
  const state = { accepting: false };
  const unavailable = new Set<number>();
  let headSlot = 0;
  const hash = () => base58.encode(randomBytes(32));
  const last = (): Block | undefined => [...blocks.values()].sort((a, b) => b.slot - a.slot)[0];
  const addBlock = (given: unknown[] = [], at?: number): number => {
    const transactions = [...given, ...mempool.splice(0)];
    const parent = last();
    const slot = at ?? headSlot + 1;
    blocks.set(slot, { slot, hash: hash(), parentSlot: parent?.slot ?? 0, previousHash: parent?.hash ?? hash(), height: (parent?.height ?? 0) + 1, transactions });
    headSlot = Math.max(headSlot, slot);
    return slot;
  };
  for (let i = 0; i < start; i++) addBlock();

  const statusOf = (signature: string) => {
    for (const block of blocks.values()) {
      for (const entry of block.transactions as Array<{ transaction: { signatures: string[] } }>) {
        if (entry.transaction.signatures[0] === signature) return { slot: block.slot, confirmations: headSlot - block.slot, err: null, status: { Ok: null }, confirmationStatus: 'confirmed' };
      }
    }
    return null;
  };
  const answer = (method: string, params: unknown[]): { result?: unknown; error?: unknown } => {
    const context = { slot: headSlot };
    switch (method) {
      case 'getSlot':
        return { result: headSlot };
      case 'getBlockHeight':
        return { result: last()?.height ?? 0 };
      case 'getLatestBlockhash':
        return { result: { context, value: { blockhash: last()!.hash, lastValidBlockHeight: last()!.height + 150 } } };
      case 'getBlock': {
        const slot = Number(params[0]);
        const block = blocks.get(slot);
        if (unavailable.delete(slot) || slot > headSlot) return { error: { code: -32004, message: `Block not available for slot ${slot}` } };
        if (!block) return { error: { code: -32007, message: `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot`, data: null } };
        const details = (params[1] as { transactionDetails?: string } | undefined)?.transactionDetails;
        const head = { blockHeight: block.height, blockTime: 1_700_000_000 + slot, blockhash: block.hash, parentSlot: block.parentSlot, previousBlockhash: block.previousHash };
        return { result: details === 'none' ? head : { ...head, transactions: block.transactions } };
      }
      case 'getSignatureStatuses':
        return { result: { context, value: (params[0] as string[]).map(statusOf) } };
      case 'getBalance':
        return { result: { context, value: 0 } };
      case 'getTokenAccountBalance':
        return { error: { code: -32602, message: 'Invalid param: could not find account' } };
      case 'getMinimumBalanceForRentExemption':
        return { result: 890_880 };
      case 'sendTransaction': {
        // Wire bytes: a compact-u16 count of signatures (1 here), then the 64-byte signatures.
        const signature = base58.encode(Buffer.from(String(params[0]), 'base64').subarray(1, 65));
        sent.push(signature);
        if (state.accepting) {
          // Landed as it is: the node executes nothing (no balance moves in its meta).
          mempool.push({
            meta: { err: null, fee: 5000, preBalances: [1], postBalances: [1], preTokenBalances: [], postTokenBalances: [] },
            transaction: { message: { accountKeys: [SYSTEM_PROGRAM] }, signatures: [signature] },
          });
          return { result: signature };
        }
        return { error: { code: -32002, message: 'Transaction simulation failed: Blockhash not found', data: { accounts: null, err: 'BlockhashNotFound', logs: [], unitsConsumed: 0 } } };
      }
      default:
        return { error: { code: -32601, message: 'Method not found' } };
    }
  };

  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const { id, method, params } = JSON.parse(body) as { id: unknown; method: string; params?: unknown[] };
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ jsonrpc: '2.0', id, ...answer(method, params ?? []) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };

  return {
    get accepting() {
      return state.accepting;
    },
    set accepting(value: boolean) {
      state.accepting = value;
    },
    sent,
    url: `http://127.0.0.1:${port}`,
    head: () => headSlot,
    block: addBlock,
    dropFrom: (slot) => {
      for (const key of [...blocks.keys()]) if (key >= slot) blocks.delete(key);
    },
    notAvailableOnce: (slot) => unavailable.add(slot),
    solTransfer: (to, lamports, signature = base58.encode(randomBytes(64))) => ({
      signature,
      transaction: {
        meta: {
          err: null,
          fee: 5000,
          innerInstructions: [],
          logMessages: [],
          preBalances: [10_000_000_000, 0, 1],
          postBalances: [10_000_000_000 - lamports - 5000, lamports, 1],
          preTokenBalances: [],
          postTokenBalances: [],
          rewards: [],
          status: { Ok: null },
          loadedAddresses: { readonly: [], writable: [] },
        },
        transaction: {
          message: {
            accountKeys: [OUTSIDE_SENDER, to, SYSTEM_PROGRAM],
            header: { numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 1, numRequiredSignatures: 1 },
            instructions: [{ accounts: [0, 1], data: '3Bxs4h24hBtQy9rw', programIdIndex: 2, stackHeight: null }],
            recentBlockhash: last()!.hash,
          },
          signatures: [signature],
        },
        version: 'legacy',
      },
    }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
