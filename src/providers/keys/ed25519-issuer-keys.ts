import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { IssuerKeys, PublicJwk } from '../../core/ports/issuer-keys.js';

/** DER prefix of a PKCS#8 Ed25519 private key; the 32-byte seed follows it. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * An Ed25519 issuer key that signs with jose. Build it from a seed (simulation: the same seed
 * gives the same issuer on every machine) or from a private JWK (deployments). jose is loaded by
 * the first signature, not when the runtime starts.
 */
export class Ed25519IssuerKeys implements IssuerKeys {
  private readonly publicKey: PublicJwk;

  private constructor(private readonly privateKey: KeyObject) {
    const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
    this.publicKey = { kty: String(jwk.kty), crv: String(jwk.crv), x: String(jwk.x) };
  }

  /** A key derived from the simulation seed. */
  static fromSeed(seed: number | string): Ed25519IssuerKeys {
    const bytes = createHash('sha256').update(`agent-services/issuer-key/${seed}`).digest();
    return new Ed25519IssuerKeys(createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, bytes]), format: 'der', type: 'pkcs8' }));
  }

  /**
   * A fresh random key (live mode without a configured key). Credentials it signs stop verifying
   * once the process ends; deployments pass their own key with {@link Ed25519IssuerKeys.fromJwk}.
   */
  static generate(): Ed25519IssuerKeys {
    return new Ed25519IssuerKeys(generateKeyPairSync('ed25519').privateKey);
  }

  /** A key loaded from a private Ed25519 JWK (`{kty: "OKP", crv: "Ed25519", d, x}`). */
  static fromJwk(jwk: { kty: string; crv: string; d: string; x: string }): Ed25519IssuerKeys {
    return new Ed25519IssuerKeys(createPrivateKey({ key: jwk, format: 'jwk' }));
  }

  publicJwk(): PublicJwk {
    return { ...this.publicKey };
  }

  async signJws(payload: object, header: { typ: string; kid: string }): Promise<string> {
    const { CompactSign } = await import('jose');
    return new CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ alg: 'EdDSA', ...header }).sign(this.privateKey);
  }
}
