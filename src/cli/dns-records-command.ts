import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { parseArgs } from 'node:util';
import { DEFAULT_DKIM_SELECTOR } from '../core/email/email-config.js';
import { mailDnsRecords } from '../core/email/dns-records.js';
import { dkimRecordValue, readDkimKey } from '../providers/mail/auth/dkim-key.js';

/** A host name: letter-digit-hyphen labels with dots, at most 253 characters. */
const HOST = /^(?=.{1,253}\.?$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

/**
 * `agent-services dns-records`: prints the MX, SPF, DKIM and DMARC records of the service domain
 * as zone-file lines, one a line.
 * @throws Error with what is wrong in the arguments or the key
 */
export function dnsRecordsCommand(args: string[], out: (line: string) => void): void {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      'service-domain': { type: 'string' },
      'dkim-key': { type: 'string' },
      'dkim-selector': { type: 'string' },
      'smtp-host': { type: 'string' },
      'smtp-relay': { type: 'string' },
    },
  });
  const domain = values['service-domain'];
  if (domain === undefined) throw new Error('--service-domain is required (dns-records --help)');
  if (!HOST.test(domain) || !domain.includes('.')) throw new Error(`--service-domain must be a domain name such as agents.example.com, got "${domain}"`);
  const mxHost = values['smtp-host'];
  if (mxHost !== undefined && (!HOST.test(mxHost) || isIP(mxHost) !== 0)) throw new Error(`--smtp-host must be the host name of the SMTP listener (an MX names a host, not an address), got "${mxHost}"`);
  const selector = values['dkim-selector'] ?? DEFAULT_DKIM_SELECTOR;
  if (!HOST.test(selector)) throw new Error(`--dkim-selector must be a DNS label such as agents, got "${selector}"`);
  let relayHost: string | undefined;
  if (values['smtp-relay'] !== undefined) {
    try {
      relayHost = new URL(values['smtp-relay']).hostname;
    } catch {
      throw new Error(`--smtp-relay must be a URL such as smtp://relay.example.com:587, got "${values['smtp-relay']}"`);
    }
    if (!relayHost) throw new Error(`--smtp-relay names no host: "${values['smtp-relay']}"`);
  }
  let dkim: { selector: string; value: string } | undefined;
  const keyFile = values['dkim-key'];
  if (keyFile !== undefined) {
    let pem: string;
    try {
      pem = readFileSync(keyFile, 'utf8');
    } catch (error) {
      throw new Error(`--dkim-key: cannot read ${keyFile} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    dkim = { selector, value: dkimRecordValue(readDkimKey(pem)) };
  }
  for (const line of mailDnsRecords({ domain, ...(mxHost ? { mxHost } : {}), ...(dkim ? { dkim } : {}), ...(relayHost ? { relayHost } : {}) })) out(line);
}
