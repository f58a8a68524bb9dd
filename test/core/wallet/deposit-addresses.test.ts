import { describe, expect, it } from 'vitest';
import { HdCustodyKeys, mnemonicFromSeed } from '../../../src/providers/custody/hd-custody-keys.js';
import { IBAN, walletWorld } from './wallet-world.js';

const MNEMONIC = 'test test test test test test test test test test test junk';

describe('GET /v1/wallet/addresses', () => {
  it("answers each agent's own addresses on ethereum, base and solana, from index 1 up, distinct per agent", async () => {
    const world = await walletWorld({ wallet: { custodyMnemonic: MNEMONIC } });
    const keys = new HdCustodyKeys(MNEMONIC);
    const alice = await world.agent('alice');
    const bob = await world.agent('bob');
    const a = await alice.client.wallet.getAddresses();
    expect(a).toEqual({
      addresses: [
        { network: 'ethereum', address: keys.addresses(1).evm, assets: ['usdc', 'eth'] },
        { network: 'base', address: keys.addresses(1).evm, assets: ['usdc', 'eth'] },
        { network: 'solana', address: keys.addresses(1).solana, assets: ['usdc', 'sol'] },
      ],
    });
    const b = await bob.client.wallet.getAddresses();
    expect(b.addresses[0]!.address).toBe(keys.addresses(2).evm);
    expect(b.addresses[2]!.address).toBe(keys.addresses(2).solana);
    // Index 0 is the hot wallet and belongs to no agent.
    expect([a, b].flatMap((answer) => answer.addresses.map((entry) => entry.address))).not.toContain(keys.addresses(0).evm);
    expect(await alice.client.wallet.getAddresses()).toEqual(a);
  });

  it('derives the addresses from the seed in simulation: same seed, same addresses', async () => {
    const one = await walletWorld({ seed: 3 });
    const two = await walletWorld({ seed: 3 });
    const other = await walletWorld({ seed: 4 });
    const [x, y, z] = await Promise.all([one, two, other].map(async (world) => (await world.agent('alice')).client.wallet.getAddresses()));
    expect(x).toEqual(y);
    expect(x!.addresses[0]!.address).toBe(new HdCustodyKeys(mnemonicFromSeed(3)).addresses(1).evm);
    expect(z!.addresses[0]!.address).not.toBe(x!.addresses[0]!.address);
  });

  it('keeps the mnemonic out of snapshots, events and answers', async () => {
    const world = await walletWorld({ wallet: { custodyMnemonic: MNEMONIC } });
    const alice = await world.agent('alice', { usdc: '10' });
    await alice.client.wallet.getAddresses();
    await alice.client.wallet.send({ to: IBAN, amount: '1', asset: 'usd' }).catch(() => undefined);
    const everything = JSON.stringify([await world.runtime.sim.snapshot(), await world.runtime.sim.events(0, 1000)]);
    expect(everything).not.toContain('junk');
    expect(everything).not.toContain('test test');
  });
});

describe('reference on history records', () => {
  it("is the rail's reference on an outbound transfer and null on a book transfer or funding", async () => {
    const world = await walletWorld();
    const alice = await world.agent('alice', { usd: '100' });
    await world.agent('bob');
    const bank = await alice.client.wallet.send({ to: IBAN, amount: '10', asset: 'usd' });
    const book = await alice.client.wallet.send({ to: 'bob', amount: '1', asset: 'usd' });
    const sent = await alice.client.wallet.getTransaction(bank.transaction_id);
    expect(sent.reference).toMatch(/\S+/);
    expect((await alice.client.wallet.getTransaction(book.transaction_id)).reference).toBeNull();
    const events = (await world.runtime.sim.events(0, 1000)).events.filter((event) => event.type === 'wallet.transaction.created');
    expect(events.find((event) => event.data.transaction_id === bank.transaction_id)?.data.tx_hash).toBe(sent.reference);
    const opening = (await alice.client.wallet.listTransactions({ direction: 'in' })).transactions.at(-1)!;
    expect(opening.reference).toBeNull();
  });
});

describe('--custody-mnemonic-file', () => {
  it('reads the mnemonic from a file, and names the file but never its words when it is bad', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { parseServeArgs } = await import('../../../src/cli/serve-command.js');
    const dir = mkdtempSync(join(tmpdir(), 'custody-'));
    const good = join(dir, 'good.txt');
    writeFileSync(good, `${MNEMONIC}\n`);
    const options = parseServeArgs(['--custody-mnemonic-file', good], {}).runtime;
    expect(options.wallet).toEqual({ custodyMnemonicFile: good });
    const world = await walletWorld(options);
    expect((await (await world.agent('alice')).client.wallet.getAddresses()).addresses[0]!.address).toBe(new HdCustodyKeys(MNEMONIC).addresses(1).evm);
    const bad = join(dir, 'bad.txt');
    writeFileSync(bad, 'zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo');
    await expect(walletWorld({ wallet: { custodyMnemonicFile: bad } })).rejects.toThrow(/bad\.txt: the custody mnemonic is not a valid BIP-39/);
    await expect(walletWorld({ wallet: { custodyMnemonicFile: join(dir, 'missing') } })).rejects.toThrow(/missing: ENOENT/);
  });
});

describe('--chain, --usdc, --confirmations', () => {
  it('parses repeated NETWORK=VALUE flags and refuses bad ones naming the flag', async () => {
    const { parseServeArgs } = await import('../../../src/cli/serve-command.js');
    const options = parseServeArgs(
      ['--chain', 'ethereum=http://127.0.0.1:8545', '--chain', 'base=local', '--usdc', 'ethereum=0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '--confirmations', 'ethereum=3', '--custody-mnemonic-file', 'm.txt'],
      {},
    ).runtime;
    expect(options.wallet).toEqual({
      chains: { ethereum: 'http://127.0.0.1:8545', base: 'local' },
      usdc: { ethereum: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' },
      confirmations: { ethereum: 3 },
      custodyMnemonicFile: 'm.txt',
    });
    expect(parseServeArgs([], {}).runtime.wallet).toBeUndefined();
    expect(() => parseServeArgs(['--chain', 'base=local'], {})).toThrow(/needs --custody-mnemonic-file/);
    expect(() => parseServeArgs(['--chain', 'polygon=local'], {})).toThrow(/--chain must be NETWORK=VALUE/);
    expect(() => parseServeArgs(['--chain', 'base=mainnet'], {})).toThrow(/--chain base: expected sim, local or an http/);
    expect(() => parseServeArgs(['--usdc', 'base=0x12'], {})).toThrow(/--usdc base/);
    expect(() => parseServeArgs(['--confirmations', 'base=0'], {})).toThrow(/--confirmations base/);
    expect(() => parseServeArgs(['--confirmations', 'base=x'], {})).toThrow(/--confirmations base/);
  });
});
