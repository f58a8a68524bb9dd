import { parseE164 } from './numbers.js';
import type { ServiceIdentifier } from '../shared/di.js';
import { DEFAULT_WORDS_PER_MINUTE } from './speech.js';

/** Phone options of `createRuntime({ phone })`; every field has the DECISIONS.md default. */
export interface PhoneOptions {
  /** Seconds from `queued` to `sent` (simulated carrier, default 1). */
  smsSentAfterSeconds?: number;
  /** Seconds from `sent` to `delivered` or `failed` (simulated carrier, default 3). */
  smsDeliveredAfterSeconds?: number;
  /** Seconds from `initiated` to `ringing` (simulated carrier, default 1). */
  callRingingAfterSeconds?: number;
  /** Seconds from `ringing` to the answer (simulated carrier, default 4). */
  callAnsweredAfterSeconds?: number;
  /** Speaking rate of scripts and `<Say>` (default 150). */
  wordsPerMinute?: number;
  /** Most `<Redirect>`s one call follows (default 10). */
  maxRedirects?: number;
  /** Real-time limit of one TwiML fetch in milliseconds (default 10,000). */
  twimlTimeoutMs?: number;
  /** Longest a call stays in progress, in seconds of service time (default 14,400: Twilio's default `TimeLimit`). */
  maxCallSeconds?: number;
  /**
   * The numbers new agents get, in this order (E.164; a real carrier's, such as the numbers of a
   * Twilio account). When given, creation takes the first one no agent holds, and answers 409
   * `conflict` once every one is taken; when absent numbers are drawn as in simulation.
   */
  numberPool?: readonly string[];
}

/** The resolved phone configuration of one runtime. */
export interface PhoneConfig {
  readonly smsSentAfterMs: number;
  readonly smsDeliveredAfterMs: number;
  readonly callRingingAfterMs: number;
  readonly callAnsweredAfterMs: number;
  readonly wordsPerMinute: number;
  readonly maxRedirects: number;
  readonly twimlTimeoutMs: number;
  readonly maxCallSeconds: number;
  /** The numbers new agents get, or null to draw them. */
  readonly numberPool: readonly string[] | null;
}

/** Injection token of {@link PhoneConfig}. */
export const PhoneConfig = Symbol.for('agent-services/PhoneConfig') as ServiceIdentifier<PhoneConfig>;

/** Resolves phone options. @throws RangeError on a negative delay or a non-positive rate */
export function phoneConfig(options: PhoneOptions = {}): PhoneConfig {
  const seconds = (value: number | undefined, fallback: number, name: string) => {
    const resolved = value ?? fallback;
    if (!Number.isFinite(resolved) || resolved < 0) throw new RangeError(`phone.${name} must be a number of seconds >= 0`);
    return Math.round(resolved * 1000);
  };
  const positive = (value: number | undefined, fallback: number, name: string, min: number) => {
    const resolved = value ?? fallback;
    if (!Number.isInteger(resolved) || resolved < min) throw new RangeError(`phone.${name} must be an integer >= ${min}`);
    return resolved;
  };
  return {
    smsSentAfterMs: seconds(options.smsSentAfterSeconds, 1, 'smsSentAfterSeconds'),
    smsDeliveredAfterMs: seconds(options.smsDeliveredAfterSeconds, 3, 'smsDeliveredAfterSeconds'),
    callRingingAfterMs: seconds(options.callRingingAfterSeconds, 1, 'callRingingAfterSeconds'),
    callAnsweredAfterMs: seconds(options.callAnsweredAfterSeconds, 4, 'callAnsweredAfterSeconds'),
    wordsPerMinute: positive(options.wordsPerMinute, DEFAULT_WORDS_PER_MINUTE, 'wordsPerMinute', 1),
    maxRedirects: positive(options.maxRedirects, 10, 'maxRedirects', 0),
    twimlTimeoutMs: positive(options.twimlTimeoutMs, 10_000, 'twimlTimeoutMs', 1),
    maxCallSeconds: positive(options.maxCallSeconds, 14_400, 'maxCallSeconds', 1),
    numberPool: options.numberPool === undefined ? null : numberPoolOf(options.numberPool),
  };
}

/** The pool in canonical E.164. @throws RangeError naming the first entry that is not a phone number */
function numberPoolOf(pool: readonly string[]): string[] {
  return pool.map((entry, index) => {
    const parsed = parseE164(entry);
    if (!parsed) throw new RangeError(`phone.numberPool.${index}: expected an E.164 number such as +14155552671, got "${entry}"`);
    return parsed.number;
  });
}
