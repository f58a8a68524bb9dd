/**
 * Email addresses: a strict RFC 5322 `addr-spec` check (ASCII, no display names, no comments) and
 * the mapping of an address on the service domain to the agent name that owns the mailbox.
 */

/** Longest local part (RFC 5321 §4.5.3.1.1). */
const LOCAL_MAX = 64;
/** Longest address (RFC 5321 path of 256 octets minus the angle brackets). */
const ADDRESS_MAX = 254;
/** Longest domain (RFC 1035). */
const DOMAIN_MAX = 253;

/** RFC 5322 `dot-atom-text`: atext runs joined by single dots. */
const DOT_ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
/** RFC 5322 `quoted-string` without folding white space: qtext or quoted-pair. */
const QUOTED = /^"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"$/;
/** An RFC 1123 host label: letters, digits and inner hyphens, 1 to 63 characters. */
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/**
 * Whether `text` is an RFC 5322 `addr-spec` that mail can be routed to: a dot-atom or
 * quoted-string local part of at most 64 characters, `@`, and a host name of letter-digit-hyphen
 * labels; at most 254 characters. Display-name forms (`Bob <bob@example.com>`), comments, domain
 * literals and non-ASCII addresses are refused.
 */
export function isValidAddress(text: string): boolean {
  if (text.length === 0 || text.length > ADDRESS_MAX) return false;
  const at = text.lastIndexOf('@');
  if (at <= 0 || at === text.length - 1) return false;
  const local = text.slice(0, at);
  const domain = text.slice(at + 1);
  if (local.length > LOCAL_MAX || domain.length > DOMAIN_MAX) return false;
  if (!DOT_ATOM.test(local) && !QUOTED.test(local)) return false;
  return domain.split('.').every((label) => LABEL.test(label));
}

/** Agent names (DECISIONS.md): the left part of an agent's address. */
const AGENT_NAME = /^[a-z0-9][a-z0-9-]{1,31}$/;

/**
 * The agent name an address would belong to on `serviceDomain`: undefined when the address is
 * outside the service, '' when it is on the service domain but cannot name an agent. Domain and local part are compared case-insensitively, and a `+tag`
 * sub-address reaches the same mailbox (`bob+invoices@agents.test` → `bob`). The answer is only a
 * candidate: whether such an agent exists is for the caller to check.
 */
export function localMailboxName(address: string, serviceDomain: string): string | undefined {
  const at = address.lastIndexOf('@');
  if (at <= 0) return undefined;
  if (address.slice(at + 1).toLowerCase() !== serviceDomain.toLowerCase()) return undefined;
  const local = address.slice(0, at).toLowerCase();
  const plus = local.indexOf('+');
  const name = plus === -1 ? local : local.slice(0, plus);
  return AGENT_NAME.test(name) ? name : '';
}

/** Whether an address is on the service domain (whether or not a mailbox exists for it). */
export function isServiceAddress(address: string, serviceDomain: string): boolean {
  return localMailboxName(address, serviceDomain) !== undefined;
}
