import { isIP } from 'node:net';
// mailauth's package entry loads its BIMI and MTA-STS code, whose bundled undici wants Node 22;
// these modules (and the SPF evaluator under ./spf-check.ts) load on Node 20 (test/providers/mail/auth).
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { evaluateDmarc } from 'mailauth/lib/dmarc/index.js';
import type { InboundAuthentication } from '../../../core/email/authentication.js';
import type { AuthResult, MessageAuthentication } from '../../../core/email/email.schema.js';
import { DNS_TIMEOUT_MS, type DnsResolver } from './dns-resolver.js';
import { performance } from 'node:perf_hooks';
import { unsignedAuthors } from './unsigned-authors.js';
import { formatAuthHeaderRow } from 'mailauth/lib/tools.js';
import { checkSpf, type SpfOutcome } from './spf-check.js';
import { AnswerMemo } from './answer-memo.js';

/** What the SMTP session knows about where a message came from. */
export interface ConnectionFacts {
  /** The connecting client's IP address. */
  ip: string;
  /** The name the client gave in HELO or EHLO. */
  helo: string;
  /** `MAIL FROM` ('' for the null sender of bounces: SPF then checks the HELO name). */
  sender: string;
}

/** A checked message: the verdict and header to keep, and the DMARC policy its From domain asks for. */
export interface CheckedMessage extends InboundAuthentication {
  /** The effective DMARC policy (`none`, `quarantine`, `reject`) when a record was found, else null. */
  dmarcPolicy: string | null;
}

/** SPF's result and its Authentication-Results row (without the comment). */
interface SpfVerdict {
  outcome: SpfOutcome;
  row: string;
}

const RESULTS = new Set<AuthResult>(['pass', 'fail', 'softfail', 'neutral', 'none', 'temperror', 'permerror']);

/**
 * A mailauth result as one of RFC 8601's names the contract uses. mailauth also answers `policy`
 * (a signature that verified with a key the receiver does not accept, such as RSA under 1024 bits):
 * nothing an agent may trust, so it reads `fail`.
 */
function resultOf(value: unknown): AuthResult {
  if (value === 'policy') return 'fail';
  return RESULTS.has(value as AuthResult) ? (value as AuthResult) : 'permerror';
}

/** The domain of the last `@` of an address, lower case, or ''. */
function domainOf(address: string | undefined): string {
  if (!address) return '';
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}

/** A header value on one line: mailauth's infos may carry folding. */
const oneLine = (text: string) => (text.includes('\n') ? text.replace(/\r?\n[ \t]*/g, ' ').trim() : text.trim());

/**
 * Checks who sent a message received over SMTP, with the `mailauth` library: SPF of the connecting
 * address against the envelope sender's domain (RFC 7208), every DKIM signature (RFC 6376, 8463),
 * and DMARC alignment of both with the From domain (RFC 7489). DNS answers come from `resolver`;
 * one that fails or is slow makes the check that needed it `temperror`, never a failure of the
 * delivery. The `Authentication-Results` header (RFC 8601) names `authservId`, the service domain.
 */
export class MailAuthenticator {
  /**
   * SPF by client address, HELO name and envelope sender, DMARC by its inputs: each evaluation is
   * reused for as long as every DNS answer it read is still the resolver's cached one, so reuse
   * gives what evaluating again would (see {@link AnswerMemo}).
   */
  private readonly spf: AnswerMemo<SpfVerdict>;
  private readonly dmarc: AnswerMemo<DmarcVerdict>;

  /**
   * @param limitMs how long the DNS lookups of one message may take in all: past it every lookup
   * left reads temperror, so an unreachable resolver holds a message this long, not this long per
   * lookup (default 5 s, the limit of one lookup)
   */
  constructor(
    private readonly authservId: string,
    private readonly resolver: DnsResolver,
    private readonly limitMs = DNS_TIMEOUT_MS,
  ) {
    this.spf = new AnswerMemo(resolver);
    this.dmarc = new AnswerMemo(resolver);
  }

  /** The verdict on `raw` as received from the client of `facts`; never throws. */
  async check(raw: Buffer, facts: ConnectionFacts): Promise<CheckedMessage> {
    try {
      return await this.evaluate(raw, facts);
    } catch {
      // mailauth answers DNS trouble as temperror itself; anything else it throws is the same for
      // the agent: the message could not be checked now.
      return {
        verdict: { spf: 'temperror', dkim: [], dmarc: 'temperror', from_domain: '' },
        resultsHeader: `${this.authservId}; spf=temperror; dkim=temperror; dmarc=temperror`,
        dmarcPolicy: null,
      };
    }
  }

  private async evaluate(raw: Buffer, facts: ConnectionFacts): Promise<CheckedMessage> {
    const deadlineMs = performance.now() + this.limitMs;
    const resolver = (name: string, type: string) => this.resolver(name, type, deadlineMs);
    const authors = unsignedAuthors(raw);
    const helo = isIP(facts.helo) ? `[${facts.helo}]` : facts.helo || (isIP(facts.ip) ? `[${facts.ip}]` : facts.ip);
    // SPF and DKIM wait on DNS independently; DMARC needs both. DKIM is verified strictly: a body
    // that no longer matches its hash reads fail (RFC 6376 §6.1.3, RFC 8601), not mailauth's
    // lenient neutral, and rsa-sha1 (RFC 8301) or a malformed signature never passes.
    const spfKey = JSON.stringify([facts.ip, helo, facts.sender]);
    // Unsigned mail whose SPF result stands waits for nothing.
    const keptSpf = authors ? this.spf.kept(spfKey) : undefined;
    const [dkim, spf] =
      authors && keptSpf
        ? [{ ...authors, results: [] }, keptSpf]
        : await Promise.all([
            authors ? { ...authors, results: [] } : dkimVerify(raw, { resolver: resolver as never, strict: true, ...(facts.sender ? { sender: facts.sender } : {}) }),
            this.spf.get(spfKey, resolver, (ask) => this.checkSpf(facts.ip, helo, facts.sender, ask)),
          ]);
    const signatures = dkim.results.filter((row) => row.signingDomain);
    const inputs: DmarcInputs = {
      headerFrom: dkim.headerFrom,
      fromFields: dkim.fromFields,
      spfDomains: spf.outcome.result === 'pass' && spf.outcome.domain ? [spf.outcome.domain] : [],
      dkimDomains: signatures
        .filter((row) => row.status.result === 'pass')
        .map((row) => ({
          domain: String(row.signingDomain),
          ...(row.id !== undefined ? { id: row.id } : {}),
          ...(row.status.aligned !== undefined ? { aligned: row.status.aligned } : {}),
          ...(row.status.underSized !== undefined ? { underSized: row.status.underSized } : {}),
        })),
    };
    const dmarcKey = JSON.stringify(inputs);
    const dmarc = this.dmarc.kept(dmarcKey) ?? (await this.dmarc.get(dmarcKey, resolver, (ask) => dmarcOutcome(inputs, ask)));
    const verdict: MessageAuthentication = {
      spf: spf.outcome.result,
      dkim: signatures.map((row) => ({ domain: String(row.signingDomain).toLowerCase(), selector: String(row.selector ?? ''), result: resultOf(row.status.result) })),
      dmarc: dmarc.result,
      from_domain: dmarc.fromDomain,
    };
    const infos = [...(signatures.length > 0 ? signatures.map((row) => oneLine(row.info)) : ['dkim=none']), spf.row, dmarc.row];
    return { verdict, resultsHeader: `${this.authservId}; ${infos.join('; ')}`, dmarcPolicy: dmarc.policy };
  }

  /** SPF's result and its Authentication-Results row. */
  private async checkSpf(ip: string, helo: string, sender: string, ask: DnsResolver): Promise<SpfVerdict> {
    const outcome = await checkSpf({ ip, helo, mta: this.authservId, sender }, ask);
    // SPF's comment ("domain of ... designates ... as permitted sender") is left out: the header is
    // kept with every message, and its result and identities say the same.
    return { outcome, row: oneLine(formatAuthHeaderRow('spf', { result: outcome.result, smtp: outcome.smtp })) };
  }
}

/** What DMARC is evaluated from, besides DNS: the From authors and the domains SPF and DKIM passed for. */
type DmarcInputs = Omit<Parameters<typeof evaluateDmarc>[0], 'resolver' | 'strict' | 'arcResult'>;

/** What the service keeps of a DMARC evaluation. */
interface DmarcVerdict {
  result: AuthResult;
  fromDomain: string;
  /** Its Authentication-Results row. */
  row: string;
  /** The effective policy (`none`, `quarantine`, `reject`) when a record was found, else null. */
  policy: string | null;
}

/** DMARC (RFC 7489) of the From domain by mailauth's `evaluateDmarc`, asking DNS with `ask`. */
async function dmarcOutcome(inputs: DmarcInputs, ask: DnsResolver): Promise<DmarcVerdict> {
  const { response, reason } = await evaluateDmarc({ ...inputs, resolver: ask as never });
  if (!response) {
    // Several From domains cannot be validated (RFC 9989 §5.3.1): a way to dodge DMARC, so not "none".
    const result = reason === undefined || reason === 'no-author-domain' ? 'none' : 'permerror';
    return { result, fromDomain: domainOf(inputs.headerFrom[0]), row: `dmarc=${result}`, policy: null };
  }
  return {
    result: resultOf(response.status.result),
    fromDomain: String(response.status.header?.from ?? '').toLowerCase(),
    row: oneLine(response.info),
    policy: response.policy ? String(response.policy) : null,
  };
}
