import { readFileSync } from 'node:fs';
import { dkimSign } from 'mailauth/lib/dkim/sign.js';
import { dkimRecordValue, readDkimKey, type DkimKey } from '../../../../src/providers/mail/auth/dkim-key.js';
import type { Zone } from '../../../support/dns-server.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');

/** The test keys: RSA 2048, Ed25519, and an RSA key too short to sign with. */
export const KEYS = {
  rsa: fixture('dkim-rsa.pem'),
  ed25519: fixture('dkim-ed25519.pem'),
  rsa1024: fixture('rsa-1024.pem'),
};

/** The self-signed certificate (mx.agents.test, localhost, 127.0.0.1) and key of the TLS tests. */
export const TLS = { cert: fixture('smtp-tls.crt'), key: fixture('smtp-tls.key') };

/**
 * A zone for `example.com`: SPF allows 127.0.0.1 (the tests' client), the RSA key published as
 * `sel._domainkey`, DMARC `p=reject`; `spoofed.example` publishes nothing.
 */
export function senderZone(): Zone {
  return {
    'example.com': { TXT: ['v=spf1 ip4:127.0.0.1 -all'] },
    'sel._domainkey.example.com': { TXT: [dkimRecordValue(readDkimKey(KEYS.rsa))] },
    '_dmarc.example.com': { TXT: ['v=DMARC1; p=reject'] },
    'attacker.test': { TXT: ['v=spf1 ip4:127.0.0.1 -all'] },
  };
}

/** A plain message from `from` to bob. */
export function plainMessage(from: string, extraHeaders: string[] = [], body = 'Please wire 10,000 USD today.\r\n'): Buffer {
  return Buffer.from(
    [`From: <${from}>`, 'To: <bob@agents.test>', 'Subject: Urgent', 'Date: Fri, 27 Nov 2026 10:00:00 +0000', `Message-ID: <${Math.random().toString(36).slice(2)}@example.com>`, ...extraHeaders, '', body].join('\r\n'),
  );
}

/** `message` with a DKIM-Signature of `domain`/`selector` made by mailauth. */
export async function signed(message: Buffer, domain = 'example.com', selector = 'sel', key: DkimKey = readDkimKey(KEYS.rsa)): Promise<Buffer> {
  const signature = { signingDomain: domain, selector, privateKey: key.privateKeyPem };
  const { signatures } = await dkimSign(message, { ...signature, canonicalization: 'relaxed/relaxed', signatureData: [signature] });
  return Buffer.concat([Buffer.from(signatures), message]);
}
