/**
 * The pure matching rules of policies (DECISIONS.md, Policies): recipient patterns, mail domains,
 * phone countries and the UTC day of service time. No state, no ports.
 */
import { parsePhoneNumberFromString } from 'libphonenumber-js';

/** An EVM address: compared case-insensitively (EIP-55 mixed case is only a checksum). */
const EVM = /^0x[0-9a-fA-F]{40}$/;

/** The UTC day (`YYYY-MM-DD`) of an instant of service time: the window of every `per_day` limit. */
export function utcDay(epochMs: number): string {
  // Every guarded request asks; formatting a Date is the costly part, so the last day is kept.
  const day = Math.floor(epochMs / 86_400_000);
  if (day !== lastDay.number) {
    lastDay.text = new Date(day * 86_400_000).toISOString().slice(0, 10);
    lastDay.number = day;
  }
  return lastDay.text;
}

const lastDay = { number: Number.NaN, text: '' };

/** What a send's recipient is, for matching: `to` as written, and the agent it names when it is a book transfer. */
export interface SendTarget {
  to: string;
  /** The payee's name (`bob`) when `to` names an agent of the service. */
  agentName: string | null;
  serviceDomain: string;
}

/**
 * Whether one pattern allows a recipient. A prefix (ending in `*`) is compared with `to` as
 * written (case-insensitively for an EVM prefix); an exact pattern naming an agent (`bob`,
 * `bob.<domain>`, `bob@<domain>`) allows that agent however `to` spells it; EVM addresses compare
 * case-insensitively; everything else exactly.
 */
export function recipientMatches(pattern: string, target: SendTarget): boolean {
  if (pattern.endsWith('*')) {
    const prefix = pattern.slice(0, -1);
    if (/^0x/i.test(prefix) && /^0x/i.test(target.to)) return target.to.toLowerCase().startsWith(prefix.toLowerCase());
    return target.to.startsWith(prefix);
  }
  if (EVM.test(pattern) && EVM.test(target.to)) return pattern.toLowerCase() === target.to.toLowerCase();
  if (target.agentName !== null && namedAgent(pattern, target.serviceDomain) === target.agentName) return true;
  return pattern === target.to;
}

/** Whether any of `patterns` allows the recipient. */
export function recipientAllowed(patterns: readonly string[], target: SendTarget): boolean {
  return patterns.some((pattern) => recipientMatches(pattern, target));
}

/** The agent name a handle pattern spells (`bob`, `bob.<domain>`, `bob@<domain>`), or null for other forms. */
function namedAgent(pattern: string, serviceDomain: string): string | null {
  const lower = pattern.toLowerCase();
  const domain = serviceDomain.toLowerCase();
  if (/^[a-z0-9][a-z0-9-]*$/.test(lower)) return lower;
  for (const separator of ['.', '@']) {
    const suffix = `${separator}${domain}`;
    if (lower.endsWith(suffix)) {
      const name = lower.slice(0, -suffix.length);
      if (/^[a-z0-9][a-z0-9-]*$/.test(name)) return name;
    }
  }
  return null;
}

/**
 * Whether a mail domain pattern allows an address: exactly (`example.com`), or as a suffix with
 * its leading dot (`.corp.test` allows `a.corp.test`, not `corp.test`); case-insensitive.
 */
export function domainMatches(pattern: string, address: string): boolean {
  const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
  const lower = pattern.toLowerCase();
  return lower.startsWith('.') ? domain.endsWith(lower) : domain === lower;
}

/** Whether any of `patterns` allows the address. */
export function domainAllowed(patterns: readonly string[], address: string): boolean {
  return patterns.some((pattern) => domainMatches(pattern, address));
}

/** The ISO 3166-1 alpha-2 country of an E.164 number (libphonenumber-js), or null when it has none. */
export function countryOf(e164: string): string | null {
  return parsePhoneNumberFromString(e164)?.country ?? null;
}
