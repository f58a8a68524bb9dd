import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { DEFAULT_DKIM_SELECTOR, type DkimOptions, type SmtpEdgeOptions } from '../core/email/email-config.js';
import { readDkimKey } from '../providers/mail/auth/dkim-key.js';
import { checkDnsServer } from '../providers/mail/auth/dns-resolver.js';

/** The `serve` flags of mail on the internet (DECISIONS.md): DKIM, STARTTLS, DMARC, DNS. */
export const MAIL_FLAGS = {
  'dkim-key': { type: 'string' },
  'dkim-selector': { type: 'string' },
  'smtp-tls-cert': { type: 'string' },
  'smtp-tls-key': { type: 'string' },
  'smtp-require-tls': { type: 'boolean', default: false },
  'smtp-enforce-dmarc': { type: 'boolean', default: false },
  'dns-server': { type: 'string' },
} as const;

/** The parsed values of {@link MAIL_FLAGS}. */
export interface MailFlagValues {
  'dkim-key'?: string | undefined;
  'dkim-selector'?: string | undefined;
  'smtp-tls-cert'?: string | undefined;
  'smtp-tls-key'?: string | undefined;
  'smtp-require-tls'?: boolean | undefined;
  'smtp-enforce-dmarc'?: boolean | undefined;
  'dns-server'?: string | undefined;
}

/** A DNS label such as a selector: letters, digits and hyphens, dots between labels. */
const SELECTOR = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** @throws Error naming the flag when the file cannot be read */
function readFlagFile(flag: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`--${flag}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

/**
 * The DKIM options of `--dkim-key` and `--dkim-selector`, the key read and checked now so that a
 * bad key stops the command before anything listens.
 * @throws Error naming the flag
 */
export function dkimFlags(values: MailFlagValues): DkimOptions | undefined {
  const selector = values['dkim-selector'];
  if (selector !== undefined && !SELECTOR.test(selector)) throw new Error(`--dkim-selector must be a DNS label such as agents or mail-2026, got "${selector}"`);
  const file = values['dkim-key'];
  if (file === undefined) {
    if (selector !== undefined) throw new Error('--dkim-selector needs --dkim-key');
    return undefined;
  }
  const privateKey = readFlagFile('dkim-key', file);
  try {
    readDkimKey(privateKey);
  } catch (error) {
    throw new Error(`--dkim-key ${file}: ${(error as Error).message}`);
  }
  return { privateKey, selector: selector ?? DEFAULT_DKIM_SELECTOR };
}

/**
 * The SMTP listener options of the TLS, DMARC and DNS flags.
 * @throws Error naming the flag (a missing file, a half-given certificate, a flag without `--smtp-port`)
 */
export function smtpMailFlags(values: MailFlagValues, listening: boolean): Partial<SmtpEdgeOptions> {
  const cert = values['smtp-tls-cert'];
  const key = values['smtp-tls-key'];
  if ((cert === undefined) !== (key === undefined)) throw new Error('--smtp-tls-cert and --smtp-tls-key go together');
  if (values['smtp-require-tls'] && cert === undefined) throw new Error('--smtp-require-tls needs --smtp-tls-cert and --smtp-tls-key');
  const given = cert !== undefined || values['smtp-enforce-dmarc'] || values['dns-server'] !== undefined;
  if (given && !listening) throw new Error('--smtp-tls-cert, --smtp-tls-key, --smtp-require-tls, --smtp-enforce-dmarc and --dns-server need --smtp-port');
  const dnsServer = values['dns-server'];
  if (dnsServer !== undefined) checkDnsServer(dnsServer);
  const tls = cert !== undefined && key !== undefined ? { cert: readFlagFile('smtp-tls-cert', cert), key: readFlagFile('smtp-tls-key', key) } : undefined;
  if (tls) {
    try {
      createSecureContext(tls);
    } catch (error) {
      throw new Error(`--smtp-tls-cert ${cert} and --smtp-tls-key ${key}: ${(error as Error).message}`);
    }
  }
  return {
    ...(tls ? { tls } : {}),
    ...(values['smtp-require-tls'] ? { requireTls: true } : {}),
    ...(values['smtp-enforce-dmarc'] ? { enforceDmarc: true } : {}),
    ...(dnsServer !== undefined ? { dnsServer } : {}),
  };
}
