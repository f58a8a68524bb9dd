import { keccak_256 } from '@noble/hashes/sha3.js';
import { base58 } from '@scure/base';
import { electronicFormatIBAN, isValidIBAN } from 'ibantools';

const EVM_SHAPE = /^0x[0-9a-fA-F]{40}$/;

/** The EIP-55 mixed-case checksum form of a 20-byte hex address (`0x` + 40 hex). */
export function toChecksumAddress(address: string): string {
  const lower = address.slice(2).toLowerCase();
  const hash = keccak_256(new TextEncoder().encode(lower));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
    const char = lower[i]!;
    out += nibble >= 8 ? char.toUpperCase() : char;
  }
  return out;
}

/**
 * Whether `text` is an EVM address: `0x` and 40 hex digits, all lower case, all upper case, or
 * mixed case that passes the EIP-55 checksum (a mistyped mixed-case address is refused).
 */
export function isEvmAddress(text: string): boolean {
  if (!EVM_SHAPE.test(text)) return false;
  const body = text.slice(2);
  if (body === body.toLowerCase() || body === body.toUpperCase()) return true;
  return toChecksumAddress(text) === text;
}

const BASE58_SHAPE = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** Whether `text` is a Solana address: base58 (Bitcoin alphabet) of exactly 32 bytes. */
export function isSolanaAddress(text: string): boolean {
  if (!BASE58_SHAPE.test(text)) return false;
  try {
    return base58.decode(text).length === 32;
  } catch {
    return false;
  }
}

/**
 * An IBAN in electronic form (upper case, no spaces) when `text` is valid by ISO 13616: the
 * country's length and BBAN format, and the mod-97 check digits. Spaces between groups are allowed.
 */
export function normalizeIban(text: string): string | undefined {
  if (!/^[A-Za-z0-9 ]+$/.test(text)) return undefined;
  const electronic = electronicFormatIBAN(text);
  return electronic && isValidIBAN(electronic) ? electronic : undefined;
}

/**
 * Whether a 9-digit ABA routing number passes its checksum: 3·(d1+d4+d7) + 7·(d2+d5+d8) +
 * (d3+d6+d9) is a multiple of 10. All zeros is refused (it is no bank's number).
 */
export function isAbaRoutingNumber(text: string): boolean {
  if (!/^[0-9]{9}$/.test(text) || text === '000000000') return false;
  const d = [...text].map(Number);
  const sum = 3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]! + d[8]!);
  return sum % 10 === 0;
}
