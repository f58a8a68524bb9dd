import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import { mnemonicToSeedSync } from '@scure/bip39';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { HdCustodyKeys, mnemonicFromSeed, parseMnemonic } from '../../../src/providers/custody/hd-custody-keys.js';

/** The mnemonic of Hardhat's and Foundry's default accounts, whose addresses are well known. */
const TEST_MNEMONIC = 'test test test test test test test test test test test junk';

/** SLIP-0010 ed25519, written out from the spec (hardened steps only) to check the library against. */
function slip10Solana(mnemonic: string, index: number): string {
  let digest = hmac(sha512, new TextEncoder().encode('ed25519 seed'), mnemonicToSeedSync(mnemonic));
  for (const step of [44, 501, index, 0]) {
    const data = new Uint8Array(37);
    data.set(digest.slice(0, 32), 1);
    new DataView(data.buffer).setUint32(33, (step | 0x8000_0000) >>> 0);
    digest = hmac(sha512, digest.slice(32), data);
  }
  return base58.encode(ed25519.getPublicKey(digest.slice(0, 32)));
}

describe('HD custody keys', () => {
  it("derives BIP-44 EVM addresses: Hardhat's well-known accounts 0 and 1", () => {
    const keys = new HdCustodyKeys(TEST_MNEMONIC);
    expect(keys.addresses(0).evm).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    expect(keys.addresses(1).evm).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
    expect(keys.addresses(2).evm).toBe('0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC');
  });

  it("derives Solana addresses on m/44'/501'/i'/0' as SLIP-0010 specifies", () => {
    const keys = new HdCustodyKeys(TEST_MNEMONIC);
    for (const index of [0, 1, 7]) expect(keys.addresses(index).solana).toBe(slip10Solana(TEST_MNEMONIC, index));
    expect(new Set([0, 1, 2].map((i) => keys.addresses(i).solana)).size).toBe(3);
  });

  it('reads a mnemonic in any case and spacing, and refuses a bad checksum without quoting it', () => {
    expect(parseMnemonic(`  TEST test\ttest test test test test test\ntest test test junk \n`)).toBe(TEST_MNEMONIC);
    const bad = 'test test test test test test test test test test test test';
    expect(() => new HdCustodyKeys(bad)).toThrow(/not a valid BIP-39/);
    try {
      new HdCustodyKeys(bad);
    } catch (error) {
      expect((error as Error).message).not.toContain('test test');
    }
  });

  it('derives a valid mnemonic from a seed: the same seed gives the same words, another seed others', () => {
    expect(parseMnemonic(mnemonicFromSeed(7))).toBe(mnemonicFromSeed(7));
    expect(mnemonicFromSeed(7)).not.toBe(mnemonicFromSeed(8));
    expect(mnemonicFromSeed('7')).toBe(mnemonicFromSeed(7));
  });

  it('never shows its words when printed or serialised', () => {
    const keys = new HdCustodyKeys(TEST_MNEMONIC);
    expect(inspect(keys)).not.toContain('junk');
    expect(JSON.stringify({ keys })).not.toContain('junk');
    expect(String(Object.keys(keys))).not.toContain('junk');
  });

  it('refuses an index outside 0..2^31-1', () => {
    const keys = new HdCustodyKeys(TEST_MNEMONIC);
    expect(() => keys.addresses(-1)).toThrow(RangeError);
    expect(() => keys.addresses(2 ** 31)).toThrow(RangeError);
  });
});
