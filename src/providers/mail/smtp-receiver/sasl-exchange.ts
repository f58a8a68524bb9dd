import { REPLY } from './replies.js';
import { decodeBase64Line, parsePlainResponse } from './sasl.js';

/**
 * Where one step of an AUTH exchange leads: a challenge to send (a `334` reply line with CRLF),
 * the credentials to check, or the refusal to send.
 */
export type SaslOutcome = string | { user: string; pass: string } | { refusal: string };

const PLAIN = 0;
const LOGIN_USER = 1;
const LOGIN_PASS = 2;

/**
 * The client's side of one `AUTH PLAIN` (RFC 4616) or `AUTH LOGIN` exchange, with or without an
 * initial response; a response of `*` cancels it. It only decodes: the credentials are checked by
 * the session's policy.
 */
export class SaslExchange {
  private user = '';

  private constructor(
    private stage: number,
    private readonly initialResponse: string | undefined,
  ) {}

  /** Starts the exchange `AUTH <argument>` asks for; null for a mechanism other than PLAIN or LOGIN. */
  static start(argument: string): SaslExchange | null {
    const [mechanism = '', initial] = argument.split(/ +/);
    const stage = mechanism.toUpperCase() === 'PLAIN' ? PLAIN : mechanism.toUpperCase() === 'LOGIN' ? LOGIN_USER : -1;
    return stage < 0 ? null : new SaslExchange(stage, initial);
  }

  /** The first step: the initial response taken, or the first challenge. */
  initial(): SaslOutcome {
    if (this.initialResponse !== undefined) return this.respond(this.initialResponse);
    return this.stage === PLAIN ? REPLY.plainChallenge : REPLY.loginUser;
  }

  /** Takes the client's response line to the last challenge. */
  respond(line: string): SaslOutcome {
    if (line === '*') return { refusal: REPLY.authCancelled };
    const decoded = decodeBase64Line(line.trim());
    if (decoded === null) return { refusal: REPLY.badBase64 };
    if (this.stage === PLAIN) return parsePlainResponse(decoded) ?? { refusal: REPLY.authFailed };
    if (this.stage === LOGIN_USER) {
      this.user = decoded;
      this.stage = LOGIN_PASS;
      return REPLY.loginPass;
    }
    return { user: this.user, pass: decoded };
  }
}
