import { sha256 } from '@noble/hashes/sha2.js';
import { base58 } from '@scure/base';
import { entropyToMnemonic, mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { HDKey as Slip10Key } from 'micro-key-producer/slip10.js';
import { HDKey, hdKeyToAccount, type HDAccount } from 'viem/accounts';
import type { CustodyAddresses, CustodyKeys } from '../../core/ports/custody-keys.js';

/**
 * A BIP-39 mnemonic made from a world's seed, for simulated worlds: the same seed gives the same
 * custody addresses. Public knowledge (anyone with the seed has it), so only simulated chains use it.
 */
export function mnemonicFromSeed(seed: number | string): string {
  const entropy = sha256(new TextEncoder().encode(`agent-services custody ${String(seed)}`)).slice(0, 16);
  return entropyToMnemonic(entropy, wordlist);
}

/**
 * Reads a mnemonic as written in a file: words separated by any white space, in any case.
 * @throws Error (never quoting the words) when it is not a valid BIP-39 English mnemonic
 */
export function parseMnemonic(text: string): string {
  const words = text.trim().toLowerCase().split(/\s+/).join(' ');
  if (!validateMnemonic(words, wordlist)) throw new Error('the custody mnemonic is not a valid BIP-39 English mnemonic (12 to 24 words, checksum included)');
  return words;
}

/**
 * Custody keys from one BIP-39 mnemonic: EVM accounts from BIP-44 m/44'/60'/0'/0/i through viem's
 * HD accounts, Solana keys from SLIP-0010 ed25519 m/44'/501'/i'/0' (micro-key-producer, built on
 * the audited noble primitives). The seed is stretched (PBKDF2, 2048 rounds) once, on first use;
 * addresses are remembered per index. Private keys leave this class only as signing accounts for
 * the chain adapters of `src/providers/chains`, never through the {@link CustodyKeys} port.
 */
export class HdCustodyKeys implements CustodyKeys {
  #mnemonic: string;
  #seed: Uint8Array | undefined;
  #evmRoot: HDKey | undefined;
  #solanaRoot: Slip10Key | undefined;
  readonly #addresses = new Map<number, CustodyAddresses>();

  /** @throws Error when `mnemonic` is not a valid BIP-39 English mnemonic */
  constructor(mnemonic: string) {
    this.#mnemonic = parseMnemonic(mnemonic);
  }

  addresses(index: number): CustodyAddresses {
    checkIndex(index);
    let found = this.#addresses.get(index);
    if (!found) {
      found = { evm: this.evmAccount(index).address, solana: base58.encode(this.solanaKey(index).publicKeyRaw) };
      this.#addresses.set(index, found);
    }
    return found;
  }

  /** The viem account (signer) of an index: m/44'/60'/0'/0/index. */
  evmAccount(index: number): HDAccount {
    checkIndex(index);
    this.#evmRoot ??= HDKey.fromMasterSeed(this.seed());
    return hdKeyToAccount(this.#evmRoot, { addressIndex: index });
  }

  /** The ed25519 key of an index: m/44'/501'/index'/0'. `privateKey` is the 32-byte seed of the key pair. */
  solanaKey(index: number): Slip10Key {
    checkIndex(index);
    this.#solanaRoot ??= Slip10Key.fromMasterSeed(this.seed());
    return this.#solanaRoot.derive(`m/44'/501'/${index}'/0'`);
  }

  /** Keeps the words out of `console.log`, `util.inspect` and JSON. */
  toJSON(): string {
    return '[HdCustodyKeys]';
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return '[HdCustodyKeys]';
  }

  private seed(): Uint8Array {
    this.#seed ??= mnemonicToSeedSync(this.#mnemonic);
    return this.#seed;
  }
}

function checkIndex(index: number): void {
  if (!Number.isSafeInteger(index) || index < 0 || index >= 0x8000_0000) throw new RangeError(`custody index must be an integer 0..2^31-1, got ${index}`);
}
