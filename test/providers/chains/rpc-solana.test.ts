// The @solana/kit RPC adapter against answers real Solana nodes gave, recorded by other projects
// and copied verbatim into fixtures/solana-rpc-recorded.json (each entry names its repository,
// commit and file): blocto/solana-go-sdk's RPC tests (devnet and test-validator answers),
// coinbase/chainstorage's mainnet block fixture (a version-0 transaction moving usdc), and
// solana-labs/solana-ping-api's logged AlreadyProcessed error. No Solana node runs on this machine
// (the validator is not on npm or Debian); the same SolanaLedger interface runs end to end on a
// real chain in local-solana.test.ts (LiteSVM), and forks through solana-forks.test.ts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RpcSolana } from '../../../src/providers/chains/solana/rpc-solana.js';

interface Recorded {
  source: string;
  response: { result?: unknown; error?: unknown };
}
const RECORDED = JSON.parse(readFileSync(new URL('./fixtures/solana-rpc-recorded.json', import.meta.url), 'utf8')) as Record<string, Recorded>;
/** Mainnet usdc: the mint of the recorded mainnet block. */
const MAINNET_USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const V0_SIGNATURE = '5X7cr7bxjwoWvWFvSmVfmF3PhYcid4ojtNGYiDsRRP6P5cfzkahxbZfwH4YDdhy9RnSEyaT255aDw14vis5Qxvqh';

/** A transport answering each method with the named recorded answer (its envelope, this request's id). */
function replay(pick: (method: string, params: unknown[]) => string): { transport: (config: { payload: unknown }) => Promise<unknown>; calls: Array<{ method: string; params: unknown[] }> } {
  const calls: Array<{ method: string; params: unknown[] }> = [];
  return {
    calls,
    transport: async ({ payload }) => {
      const { id, method, params } = payload as { id: number; method: string; params: unknown[] };
      calls.push({ method, params });
      const recorded = RECORDED[pick(method, params)];
      if (!recorded) throw new Error(`no recorded answer for ${method}`);
      return { ...recorded.response, id };
    },
  };
}

describe('solana over JSON-RPC (@solana/kit), answers recorded from real nodes', () => {
  it('every answer names where it was recorded', () => {
    for (const [name, entry] of Object.entries(RECORDED)) if (name !== '_about') expect(entry.source).toMatch(/@[0-9a-f]{40} |public Go repository/);
  });

  it('reads usdc deposits by owner from a mainnet block (a version-0 transaction whose token accounts come from lookup tables)', async () => {
    const { transport, calls } = replay((_method, params) => (String(params[0]) === '154808473' ? 'getBlock:154808473' : 'getBlock:skipped'));
    const ledger = new RpcSolana('http://unused', MAINNET_USDC, transport as never);
    const custody = new Set(['9ou4qq7RhycWHGS8XkgQwUS1qyWHrbz7ZoCKdm9o23vy', '3qgS5KYBTFJ6Lt8GujDEQLcgfLPSnFZ5VFMrxoes7rXs', 'JARehRjGUkkEShpjzfuV4ERJS25j8XhamL776FAktNGm']);
    const { deposits, blocks } = await ledger.scan(154808472n, 154808473n, async (owner) => custody.has(owner));
    const base = { reference: V0_SIGNATURE, block: 154808473, block_hash: 'FQUbe5QqZN2RqeViRThTFfFqGA2QLUeAqZDbbrMSmac9', from: 'JARehRjGUkkEShpjzfuV4ERJS25j8XhamL776FAktNGm', asset: 'usdc' };
    // Owners whose usdc rose; the sender (a custody owner here too) paid usdc and the fee, so it gained nothing.
    expect(deposits).toEqual([
      { ...base, key: `${V0_SIGNATURE}:usdc:3qgS5KYBTFJ6Lt8GujDEQLcgfLPSnFZ5VFMrxoes7rXs`, to: '3qgS5KYBTFJ6Lt8GujDEQLcgfLPSnFZ5VFMrxoes7rXs', amount: 11_143n },
      { ...base, key: `${V0_SIGNATURE}:usdc:9ou4qq7RhycWHGS8XkgQwUS1qyWHrbz7ZoCKdm9o23vy`, to: '9ou4qq7RhycWHGS8XkgQwUS1qyWHrbz7ZoCKdm9o23vy', amount: 22_364_264n },
    ]);
    // The skipped slot is passed over; the block read carries what the fork check needs.
    expect(blocks).toEqual([{ slot: 154808473n, hash: 'FQUbe5QqZN2RqeViRThTFfFqGA2QLUeAqZDbbrMSmac9', parentSlot: 154808472n, previousHash: '8fXykXUEoTSofMDMN5E55JMv2eVpc75E3iYC38Qkq193' }]);
    // One getBlock per slot, never a call per address.
    expect(calls.map((call) => call.method)).toEqual(['getBlock', 'getBlock']);
    expect(calls[0]!.params[1]).toMatchObject({ commitment: 'confirmed', encoding: 'json', transactionDetails: 'full', maxSupportedTransactionVersion: 0 });
    expect((await ledger.scan(154808473n, 154808473n, async () => false)).deposits).toEqual([]);
  });

  it('finds nothing in a block without transfers to custody (a test validator block of votes), and reads blocks for the fork check', async () => {
    const { transport, calls } = replay((method) => (method === 'getBlock' ? ((calls.at(-1)!.params[1] as { transactionDetails: string }).transactionDetails === 'none' ? 'getBlock:33:none' : 'getBlock:33') : ''));
    const ledger = new RpcSolana('http://unused', MAINNET_USDC, transport as never);
    const scanned = await ledger.scan(33n, 33n, async () => true);
    // The vote account's fee payer lost lamports; nobody gained: no deposit even when every key is custody.
    expect(scanned.deposits).toEqual([]);
    expect(await ledger.block(33n)).toEqual({ slot: 33n, hash: 'HUonDijNaSHAPobKtAkg1ewJjy2wECpynbCq5wQ5dkCT', parentSlot: 32n, previousHash: 'CXjZvhmFVa4ATW8Qq7XSXJFmB25aEqfHiEbCieujPd9q' });
    expect(calls.at(-1)!.params[1]).toMatchObject({ transactionDetails: 'none', commitment: 'confirmed' });
    const skipped = new RpcSolana('http://unused', MAINNET_USDC, replay(() => 'getBlock:skipped').transport as never);
    expect(await skipped.block(299988448n)).toBeNull();
  });

  it('answers signature statuses: confirmed or finalized with their slot, failed, not found', async () => {
    let answer = 'getSignatureStatuses:two';
    const ledger = new RpcSolana('http://unused', MAINNET_USDC, replay(() => answer).transport as never);
    const signature = '3E6jD48LnMeNDs1QTXXunXGaqYybZKHXYdriDwqXGJbCXzVkMZNexuiGnTtUSba7PcmbKcsxKsAcBKLSmqjUKDRg';
    expect(await ledger.status(signature)).toEqual({ slot: 86136524n, success: true });
    answer = 'getSignatureStatuses:failed';
    expect(await ledger.status(signature)).toEqual({ slot: 85500622n, success: false });
    answer = 'getSignatureStatuses:notFound';
    expect(await ledger.status(signature)).toBeNull();
  });

  it('answers slot, block height (fewer: skipped slots), blockhash, holdings and the rent minimum (asked once)', async () => {
    const names: Record<string, string> = {
      getSlot: 'getSlot',
      getBlockHeight: 'getBlockHeight',
      getLatestBlockhash: 'getLatestBlockhash',
      getBalance: 'getBalance',
      getTokenAccountBalance: 'getTokenAccountBalance',
      getMinimumBalanceForRentExemption: 'getMinimumBalanceForRentExemption',
    };
    const { transport, calls } = replay((method) => names[method]!);
    const ledger = new RpcSolana('http://unused', MAINNET_USDC, transport as never);
    expect(await ledger.slot()).toBe(78413497n);
    expect(await ledger.blockHeight()).toBe(83518231n);
    // A devnet answer: the last valid block height is far below the slot, which is why expiry compares block heights.
    expect(await ledger.blockhash()).toEqual({ blockhash: 'FXuaK93DmxWt98bv3wYMdE3TMnY2o8e3h85KrGWEUAzv', lastValidBlockHeight: 92247899n });
    expect(await ledger.holdings(['RNfp4xTbBb4C3kcv2KqtAj8mu4YhMHxqm1Skg9uchZ7'])).toEqual({ sol: 6_999_995_000n, usdc: 10_000_000_000n });
    // Recorded for a 100-byte account: the adapter asks for 0 bytes and keeps whatever the node answers.
    expect(await ledger.rentExemptMinimum()).toBe(1_586_880n);
    expect(await ledger.rentExemptMinimum()).toBe(1_586_880n);
    expect(calls.filter((call) => call.method === 'getMinimumBalanceForRentExemption').map((call) => call.params[0])).toEqual([0n]);
  });

  it('sends base64 wire bytes; a transaction the cluster already processed is not an error, an expired blockhash is', async () => {
    let answer = 'sendTransaction';
    const { transport, calls } = replay(() => answer);
    const ledger = new RpcSolana('http://unused', MAINNET_USDC, transport as never);
    await ledger.sendWire('AQID');
    expect(calls[0]!.params).toEqual(['AQID', expect.objectContaining({ encoding: 'base64' })]);
    answer = 'sendTransaction:alreadyProcessed';
    await ledger.sendWire('AQID');
    answer = 'sendTransaction:blockhashNotFound';
    await expect(ledger.sendWire('AQID')).rejects.toThrow();
    await expect(ledger.faucetDeposit()).rejects.toThrow(/JSON-RPC/);
  });
});
