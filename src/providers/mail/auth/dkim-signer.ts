import type { Transform } from 'node:stream';
// The module, not mailauth's package entry, which does not load on Node 20 (see mail-authenticator.ts).
import { DkimSignStream } from 'mailauth/lib/dkim/sign.js';
import type { DkimKey } from './dkim-key.js';

/**
 * The header fields every outbound signature covers (DECISIONS.md). One that a message lacks is
 * signed as absent, so it cannot be added on the way without breaking the signature.
 */
export const DKIM_SIGNED_HEADERS = ['From', 'To', 'Cc', 'Subject', 'Date', 'Message-ID', 'In-Reply-To', 'References', 'MIME-Version', 'Content-Type'];

/** Who signs: the service domain (`d=`), the selector (`s=`) and the key. */
export interface DkimSigning {
  domain: string;
  selector: string;
  key: DkimKey;
}

/**
 * A stream that passes a whole RFC 5322 message through with a `DKIM-Signature` header in front
 * (relaxed/relaxed, rsa-sha256 or ed25519-sha256 after the key), signed with mailauth.
 */
export function dkimSignStream(signing: DkimSigning): Transform {
  // mailauth reads the keys from signatureData; its typings also name top-level fields it ignores.
  const signature = { signingDomain: signing.domain, selector: signing.selector, privateKey: signing.key.privateKeyPem };
  return new DkimSignStream({ ...signature, canonicalization: 'relaxed/relaxed', headerList: DKIM_SIGNED_HEADERS, signatureData: [signature] });
}
