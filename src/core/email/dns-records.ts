/** What the records of a mail domain are made from. */
export interface MailDomainRecords {
  /** The service domain, `D`. */
  domain: string;
  /** Host name of the SMTP listener, the MX (default `mx.D`). */
  mxHost?: string;
  /** The DKIM key record: its selector and `v=DKIM1; k=...; p=...` value. */
  dkim?: { selector: string; value: string };
  /** The relay's host (a name or an IP address), allowed to send for `D` by SPF. */
  relayHost?: string;
}

/** Longest character-string of a TXT record (RFC 1035 §3.3). */
const TXT_STRING_MAX = 255;

/** A TXT value as zone-file character-strings: quoted, split every 255 bytes (values here are ASCII). */
export function txtStrings(value: string): string {
  const parts: string[] = [];
  for (let at = 0; at < value.length || parts.length === 0; at += TXT_STRING_MAX) parts.push(`"${value.slice(at, at + TXT_STRING_MAX).replace(/["\\]/g, '\\$&')}"`);
  return parts.join(' ');
}

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/** The SPF mechanism that names the relay: `ip4:`, `ip6:` or `a:` after what it is. */
function relayMechanism(host: string): string {
  if (IPV4.test(host)) return `ip4:${host}`;
  if (host.includes(':')) return `ip6:${host.replace(/^\[|\]$/g, '')}`;
  return `a:${host}`;
}

/** A name with its final dot, as a zone file writes an absolute one. */
const absolute = (name: string) => (name.endsWith('.') ? name : `${name}.`);

/**
 * The zone-file lines a mail domain publishes (DECISIONS.md, "Mail on the internet"): MX to the
 * listener, SPF allowing the MX (and the relay), the DKIM key, and DMARC asking for quarantine
 * with aggregate reports to postmaster.
 */
export function mailDnsRecords(records: MailDomainRecords): string[] {
  const domain = records.domain.toLowerCase().replace(/\.$/, '');
  const mx = records.mxHost ?? `mx.${domain}`;
  const spf = ['v=spf1', 'mx', ...(records.relayHost ? [relayMechanism(records.relayHost)] : []), '-all'].join(' ');
  return [
    `${domain}. MX 10 ${absolute(mx)}`,
    `${domain}. TXT ${txtStrings(spf)}`,
    ...(records.dkim ? [`${records.dkim.selector}._domainkey.${domain}. TXT ${txtStrings(records.dkim.value)}`] : []),
    `_dmarc.${domain}. TXT ${txtStrings(`v=DMARC1; p=quarantine; rua=mailto:postmaster@${domain}`)}`,
  ];
}
