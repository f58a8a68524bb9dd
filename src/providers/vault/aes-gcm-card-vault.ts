import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { CardSecret, CardVault } from '../../core/ports/card-vault.js';

/** Bytes of an AES-256 key. */
const KEY_BYTES = 32;
/** Bytes of a GCM nonce and of its tag. */
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Marks the format of sealed text (version 1: base64url of nonce, ciphertext, tag). */
const PREFIX = 'v1.';

/**
 * Card secrets sealed with AES-256-GCM from `node:crypto`. The nonce is the first 12 bytes of
 * SHA-256(context): the context is a card id, unique under one key, so a nonce is never reused
 * with the key, and sealing draws no randomness (a seeded world stays deterministic). The
 * context is also the additional authenticated data.
 */
export class AesGcmCardVault implements CardVault {
  private constructor(private readonly key: Buffer) {}

  /** A vault keyed by 32 bytes. @throws RangeError for another length */
  static fromKey(key: Uint8Array): AesGcmCardVault {
    if (key.length !== KEY_BYTES) throw new RangeError(`a card vault key is ${KEY_BYTES} bytes, got ${key.length}`);
    return new AesGcmCardVault(Buffer.from(key));
  }

  /**
   * A vault keyed by configuration text: 64 hexadecimal digits or the base64 of 32 bytes
   * (`openssl rand -base64 32`).
   * @throws RangeError saying what was expected (never echoing the text)
   */
  static fromText(text: string): AesGcmCardVault {
    const trimmed = text.trim();
    const bytes = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
    if (bytes.length !== KEY_BYTES || (!/^[0-9a-fA-F]{64}$/.test(trimmed) && bytes.toString('base64').replace(/=+$/, '') !== trimmed.replace(/=+$/, ''))) {
      throw new RangeError('card_vault_key must be 32 bytes as 64 hexadecimal digits or base64 (openssl rand -base64 32)');
    }
    return new AesGcmCardVault(bytes);
  }

  /** The simulation's vault: its key derived from the seed (public knowledge, like the seed's issuer key). */
  static fromSeed(seed: number | string): AesGcmCardVault {
    return new AesGcmCardVault(
      createHash('sha256')
        .update(`agent-services card vault\0${String(seed)}`)
        .digest(),
    );
  }

  /** A vault with a fresh key from the OS, for a live service given none: secrets it seals die with the process. */
  static ephemeral(): AesGcmCardVault {
    return new AesGcmCardVault(randomBytes(KEY_BYTES));
  }

  seal(secret: CardSecret, context: string): string {
    const cipher = createCipheriv('aes-256-gcm', this.key, nonceOf(context));
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(JSON.stringify(secret), 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([nonceOf(context), body, cipher.getAuthTag()]).toString('base64url');
  }

  open(sealed: string, context: string): CardSecret {
    if (!sealed.startsWith(PREFIX)) throw new Error('not a sealed card secret');
    const bytes = Buffer.from(sealed.slice(PREFIX.length), 'base64url');
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new Error('not a sealed card secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    const plain = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as CardSecret;
  }
}

/** The GCM nonce of a context. */
function nonceOf(context: string): Buffer {
  return createHash('sha256').update(context, 'utf8').digest().subarray(0, IV_BYTES);
}
