import { createRequire } from 'node:module';
import type { DnsResolver } from './dns-resolver.js';

/**
 * mailauth's SPF evaluator and the helpers its `spf()` runs, loaded from its folder (they load on
 * Node 20, as the other modules do). `spf()` itself is not used: per message it also builds a
 * `Received-SPF` header (folded by libmime), a comment and an Authentication-Results row that
 * nothing here keeps, and validates the domain through joi; together about two thirds of its CPU.
 */
const fromMailauth = createRequire(createRequire(import.meta.url).resolve('mailauth/lib/spf/index.js'));
type IpAddress = { kind(): 'ipv4' | 'ipv6'; isIPv4MappedAddress?(): boolean; toIPv4Address?(): IpAddress; toString(): string };
type Verdict = { qualifier?: string; error?: string } | false;
const { spfVerify } = fromMailauth('./spf-verify.js') as { spfVerify(domain: string, options: object): Promise<Verdict> };
const { parseIp } = fromMailauth('./syntax.js') as { parseIp(value: string): IpAddress | null };
const { toALabel } = fromMailauth('../tools.js') as { toALabel(domain: string): string };
const joi = fromMailauth('joi') as { string(): { domain(options: object): { validate(value: string): { error?: unknown } } } };
/** The check `spf()` makes of the sender's domain before any lookup (an invalid one reads none). */
const domainSchema = joi.string().domain({ allowUnicode: false, tlds: false });

/**
 * Names joi's `domain({ allowUnicode: false, tlds: false })` always accepts: lower-case LDH labels
 * of 1-63 characters, at least two, the last starting with a letter, none an `xn--` label (which
 * joi re-reads through the URL parser). Anything else is asked of joi, so nothing it refuses passes.
 */
const PLAIN_DOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Whether `spf()` would evaluate `domain` (lower case) rather than answer none. */
export function validSenderDomain(domain: string): boolean {
  if (domain.length <= 253 && PLAIN_DOMAIN.test(domain) && !domain.includes('xn--')) return true;
  return !domainSchema.validate(domain).error;
}

/** What SPF says of a message, as mailauth's `spf()` says it (`status.result`, the checked domain). */
export interface SpfOutcome {
  result: 'pass' | 'fail' | 'softfail' | 'neutral' | 'none' | 'permerror' | 'temperror';
  /** The domain checked: the envelope sender's, or the HELO name's for the null sender ('-' when empty). */
  domain: string;
  /** The identities for Authentication-Results (`smtp.mailfrom`, `smtp.helo`), as `spf()` reports them. */
  smtp: { mailfrom: string; helo: string };
}

/** An SPF failure mailauth carries on an error: its result and text. */
type SpfError = Error & { code?: string; spfResult?: { error: string; text: string } };

const MAX_LOOKUPS = 10;
const MAX_VOID_LOOKUPS = 2;
const LAX_NAME = /^([\x20-\x2D\x2f-\x7e]+\.)+[a-z]+[a-z\-0-9]*$/i;
const VOID = new Set(['ENOTFOUND', 'ENODATA']);

function failure(error: SpfError, result: string, text: string): SpfError {
  error.spfResult = { error: result, text };
  return error;
}

/**
 * One question asked once per evaluation, as `spf()` asks (includes and redirects reuse answers);
 * each caller gets its own copy of a list (the MX list is sorted in place) and of an error (the
 * counting resolver writes on it).
 */
function askedOnce(resolver: DnsResolver): (name: string, type: string) => Promise<unknown> {
  const answers = new Map<string, Promise<unknown>>();
  return (name, type) => {
    const key = `${type}:${name}`;
    let answer = answers.get(key);
    if (!answer) {
      answer = Promise.resolve(resolver(name, type));
      answer.catch(() => false);
      answers.set(key, answer);
    }
    return answer.then(
      (value) => (Array.isArray(value) ? value.slice() : value),
      (error: SpfError) => {
        if (!error || typeof error !== 'object') throw error;
        const copy: SpfError = Object.assign(new Error(error.message), error);
        copy.code = error.code!;
        if (error.spfResult) copy.spfResult = { ...error.spfResult };
        throw copy;
      },
    );
  };
}

/**
 * The lookup limits of RFC 7208 §4.6.4 as `spf()` counts them in its default mode: ten lookups
 * (the first TXT not counted for the main evaluation), two void ones, and the error each DNS
 * failure becomes. An A or AAAA lookup with the client's address family is void only when neither
 * family has records (mailauth's dual-stack rule).
 */
function counted(ask: (name: string, type: string) => Promise<unknown>, maxVoid: number, countFirst: boolean) {
  let lookups = 0;
  let voids = 0;
  let first = countFirst;
  const dualStack = async (name: string, ipv6: boolean) => {
    const [a, aaaa] = await Promise.allSettled([ask(name, 'A'), ask(name, 'AAAA')]);
    const own = ipv6 ? aaaa : a;
    const other = ipv6 ? a : aaaa;
    const isVoid = (outcome: PromiseSettledResult<unknown>) => outcome.status === 'rejected' && VOID.has((outcome.reason as SpfError)?.code ?? '');
    if (own.status === 'rejected' && !isVoid(own)) throw own.reason;
    if (isVoid(own) && isVoid(other)) throw (own as PromiseRejectedResult).reason;
    return own.status === 'fulfilled' ? own.value : [];
  };
  const resolve = async (name: string, type: string, options?: { clientIpType?: number }) => {
    if (first) lookups += 1;
    else first = true;
    if (lookups > MAX_LOOKUPS) throw failure(new Error('Too many DNS requests'), 'permerror', 'Too many DNS requests');
    if (!LAX_NAME.test(name)) throw failure(new Error('Failed to validate domain'), 'permerror', `Invalid domain ${name}`);
    try {
      return options?.clientIpType && (type === 'A' || type === 'AAAA') ? await dualStack(name, options.clientIpType === 6) : await ask(name, type);
    } catch (caught) {
      if (!caught || typeof caught !== 'object') throw failure(new Error(`DNS error when resolving ${name}: ${caught}`), 'temperror', `DNS error when resolving ${name}: ${caught}`);
      const error = caught as SpfError;
      switch (error.code) {
        case 'ENOTFOUND':
        case 'ENODATA':
          voids += 1;
          if (voids > maxVoid) throw failure(error, 'permerror', 'Too many void DNS results');
          return [];
        case 'ETIMEOUT':
          throw failure(error, 'temperror', 'DNS timeout');
        case 'EREFUSED':
          throw failure(error, 'temperror', `DNS request refused by server when resolving ${name}`);
        case 'EBADNAME':
          throw failure(error, 'permerror', `Invalid domain ${name}`);
        default:
          if (!error.spfResult) failure(error, 'temperror', error.message);
          throw error;
      }
    }
  };
  return Object.assign(resolve, { updateSubQueries: () => {}, getResolveCount: () => lookups, getVoidCount: () => voids });
}

const QUALIFIERS: Record<string, SpfOutcome['result']> = { '+': 'pass', '~': 'softfail', '-': 'fail', '?': 'neutral' };
const ERRORS = new Set(['none', 'permerror']);

/**
 * SPF (RFC 7208) of a client address for an envelope sender, or for the HELO name when the sender
 * is empty: the result mailauth's `spf()` gives in its default mode (a test holds the two equal
 * over a generated set of records and senders), evaluated by mailauth's own `spfVerify`, without
 * the headers and comment `spf()` writes and that are not kept. Never throws.
 */
export async function checkSpf(facts: { ip: string; helo: string; sender: string; mta: string }, resolver: DnsResolver): Promise<SpfOutcome> {
  const { helo, mta } = facts;
  let sender = facts.sender || `postmaster@${helo}`;
  let ip = facts.ip;
  let addr = ip ? parseIp(ip) : null;
  if (addr) ip = ip.toString().trim();
  if (addr && addr.kind() === 'ipv6' && addr.isIPv4MappedAddress?.()) {
    addr = addr.toIPv4Address!();
    ip = addr.toString();
  }
  let at = sender.lastIndexOf('@');
  if (at < 0) sender = `postmaster@${sender}`;
  else if (at === 0) sender = `postmaster${sender}`;
  at = sender.lastIndexOf('@');
  let domain =
    sender
      .slice(at + 1)
      .toLowerCase()
      .trim() || '-';
  let evalSender = sender;
  if (/[^\x00-\x7F]/.test(domain)) {
    domain = toALabel(domain);
    evalSender = `${sender.slice(0, at)}@${domain}`;
  }
  const outcome = (result: SpfOutcome['result']): SpfOutcome => ({ result, domain, smtp: { mailfrom: sender, helo } });
  if (!addr) return outcome('temperror');
  if (!validSenderDomain(domain)) return outcome('none');
  const ask = askedOnce(resolver);
  const ctx = { warnings: new Set<string>(), usedLocalPart: false };
  try {
    const verdict = await spfVerify(domain, {
      sender: evalSender,
      ip,
      addr,
      mta,
      helo,
      strict: false,
      ctx,
      expResolver: ask,
      resolver: counted(ask, MAX_VOID_LOOKUPS, false),
      createSubResolver: (options?: { ignoreVoid?: boolean }) => counted(ask, options?.ignoreVoid ? Number.POSITIVE_INFINITY : MAX_VOID_LOOKUPS, true),
    });
    if (!verdict) return outcome('neutral');
    const code = verdict.qualifier || verdict.error || '';
    return outcome(QUALIFIERS[code] ?? (ERRORS.has(code) ? (code as SpfOutcome['result']) : 'temperror'));
  } catch (error) {
    const code = (error as SpfError).spfResult?.error ?? 'temperror';
    return outcome(QUALIFIERS[code] ?? (ERRORS.has(code) ? (code as SpfOutcome['result']) : 'temperror'));
  }
}
