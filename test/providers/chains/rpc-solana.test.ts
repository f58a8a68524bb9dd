// The @solana/kit RPC adapter against recorded answers of real Solana RPC methods (no Solana node
// runs on this machine: the validator is not on npm or Debian). The same SolanaLedger interface
// is exercised end to end on a real chain by local-solana.test.ts (LiteSVM).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HdCustodyKeys } from '../../../src/providers/custody/hd-custody-keys.js';
import { RpcSolana } from '../../../src/providers/chains/solana/rpc-solana.js';
import { TEST_MNEMONIC } from './chain-world.js';

const keys = new HdCustodyKeys(TEST_MNEMONIC);
const SOL_OWNER = keys.addresses(1).solana;
const USDC_OWNER = keys.addresses(2).solana;
/** Circle's usdc mint on devnet. */
const MINT = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';

function recorded(): { transport: (config: { payload: unknown }) => Promise<unknown>; calls: Array<{ method: string; params: unknown[] }> } {
  const text = readFileSync(new URL('./fixtures/solana-rpc-answers.json', import.meta.url), 'utf8')
    .replaceAll('CUSTODY_SOL_OWNER', SOL_OWNER)
    .replaceAll('CUSTODY_USDC_OWNER', USDC_OWNER)
    .replaceAll('USDC_MINT', MINT);
  const answers = JSON.parse(text) as Record<string, unknown>;
  const calls: Array<{ method: string; params: unknown[] }> = [];
  return {
    calls,
    transport: async ({ payload }) => {
      const { id, method, params } = payload as { id: number; method: string; params: unknown[] };
      calls.push({ method, params });
      if (method === 'getBlock') {
        const block = answers[`getBlock:${String(params[0])}`];
        if (!block) return { jsonrpc: '2.0', id, error: { code: -32007, message: `Slot ${String(params[0])} was skipped, or missing due to ledger jump to recent snapshot` } };
        return { jsonrpc: '2.0', id, result: block };
      }
      return { jsonrpc: '2.0', id, result: answers[method] };
    },
  };
}

describe('solana over JSON-RPC (@solana/kit), recorded answers', () => {
  it('reads deposits from block balance changes: SOL by lamports, usdc by token balances of the mint, custody owners only', async () => {
    const { transport, calls } = recorded();
    const ledger = new RpcSolana('http://unused', MINT, transport as never);
    const custody = new Set([SOL_OWNER, USDC_OWNER]);
    const found = await ledger.transfersTo(346000099n, 346000101n, async (owner) => custody.has(owner));
    expect(found).toEqual([
      expect.objectContaining({ to: SOL_OWNER, asset: 'sol', amount: 1_000_000_000n, block: 346000100, from: 'FAUCETsender1111111111111111111111111111111', block_hash: '5Tx8F3jgSHx21CbtjwmdaKPLM5tWmreWAnPrbqHomSJF' }),
      expect.objectContaining({ to: USDC_OWNER, asset: 'usdc', amount: 12_500_000n, reference: expect.stringMatching(/^2nBhEB/) }),
    ]);
    // One getBlock per slot, skipped slots passed over; never a call per address.
    expect(calls.map((call) => call.method)).toEqual(['getBlock', 'getBlock', 'getBlock']);
    expect(calls[0]!.params[1]).toMatchObject({ encoding: 'json', transactionDetails: 'full', maxSupportedTransactionVersion: 0 });
    expect(await ledger.transfersTo(346000100n, 346000100n, async () => false)).toEqual([]);
  });

  it('answers slots, blockhashes, signature statuses and holdings, and sends base64 wire bytes', async () => {
    const { transport, calls } = recorded();
    const ledger = new RpcSolana('http://unused', MINT, transport as never);
    expect(await ledger.slot()).toBe(346000102n);
    expect(await ledger.blockhash()).toEqual({ blockhash: 'EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N', lastValidBlockHeight: 334000250n });
    expect(await ledger.status('5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW')).toEqual({ slot: 346000100n, success: true });
    expect(await ledger.holdings([SOL_OWNER])).toEqual({ sol: 1_000_000_000n, usdc: 13_500_000n });
    await ledger.sendWire('AQID');
    const sent = calls.find((call) => call.method === 'sendTransaction')!;
    expect(sent.params).toEqual(['AQID', expect.objectContaining({ encoding: 'base64' })]);
    await expect(ledger.faucetDeposit()).rejects.toThrow(/JSON-RPC/);
  });
});
