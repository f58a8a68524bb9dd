import type { ServiceIdentifier } from '../shared/di.js';

/** A public JSON Web Key (RFC 7517) as published in the issuer's DID document. */
export interface PublicJwk {
  kty: string;
  crv?: string;
  x?: string;
  kid?: string;
  alg?: string;
}

/**
 * The issuer's signing key for verifiable credentials. Simulation derives it from the seed; a
 * deployment loads its own. Signing is EdDSA (Ed25519), compact JWS.
 */
export interface IssuerKeys {
  /** The public key, to publish in `/.well-known/did.json`. */
  publicJwk(): PublicJwk;
  /** Signs `payload` as a compact JWS with the given protected header fields (alg is EdDSA). */
  signJws(payload: object, header: { typ: string; kid: string }): Promise<string>;
}

/** Injection token of {@link IssuerKeys}. */
export const IssuerKeys = Symbol.for('agent-services/IssuerKeys') as ServiceIdentifier<IssuerKeys>;
