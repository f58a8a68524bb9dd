import { createPrivateKey, createPublicKey } from 'node:crypto';

/** A DKIM signing key, checked, with the `p=` value of its DNS record. */
export interface DkimKey {
  /** The private key as PEM (PKCS#8), as mailauth signs with it. */
  privateKeyPem: string;
  /** `rsa` or `ed25519`, the record's `k=`. */
  type: 'rsa' | 'ed25519';
  /** The record's `p=`: Base64 of the SubjectPublicKeyInfo for RSA, of the raw 32-byte key for Ed25519 (RFC 8463). */
  publicKey: string;
}

/** Shortest RSA key the service signs with (RFC 8301 asks receivers to accept 1024..4096; 2048 is the norm). */
const RSA_MIN_BITS = 2048;

/**
 * Reads a PEM private key for DKIM: RSA of at least 2048 bits, or Ed25519.
 * @throws Error saying why the key cannot sign (not PEM, another type, too short)
 */
export function readDkimKey(pem: string): DkimKey {
  let key;
  try {
    key = createPrivateKey(pem);
  } catch (error) {
    throw new Error(`DKIM key: not a PEM private key (${(error as Error).message})`);
  }
  const type = key.asymmetricKeyType;
  const publicKey = createPublicKey(key);
  const privateKeyPem = key.export({ format: 'pem', type: 'pkcs8' }).toString();
  if (type === 'ed25519') {
    // The JWK's x is the raw 32-byte key, which RFC 8463 publishes.
    const raw = Buffer.from(String(publicKey.export({ format: 'jwk' }).x), 'base64url');
    return { privateKeyPem, type, publicKey: raw.toString('base64') };
  }
  if (type === 'rsa') {
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
    if (bits < RSA_MIN_BITS) throw new Error(`DKIM key: RSA of ${bits} bits; use ${RSA_MIN_BITS} bits or more, or Ed25519`);
    return { privateKeyPem, type, publicKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64') };
  }
  throw new Error(`DKIM key: ${type} keys cannot sign DKIM; use RSA (2048 bits) or Ed25519`);
}

/** The value of a DKIM key record (RFC 6376 §3.6.1), `v=DKIM1; k=rsa; p=...`. */
export function dkimRecordValue(key: DkimKey): string {
  return `v=DKIM1; k=${key.type}; p=${key.publicKey}`;
}
