/** The port operations a fault can target (DECISIONS.md, Faults). */
export const FAULT_TARGETS = ['chain.submit', 'bank.submit', 'mail.send', 'carrier.sms', 'carrier.call', 'webhook.deliver', 'embedder.embed', 'sandbox.run', 'browser.navigate', 'persistence.write'] as const;
/** A port operation a fault can target. */
export type FaultTarget = (typeof FAULT_TARGETS)[number];

/** What a fault does to the operation it hits. */
export const FAULT_EFFECTS = ['fail', 'delay', 'drop'] as const;
/** What a fault does to the operation it hits. */
export type FaultEffect = (typeof FAULT_EFFECTS)[number];

/** How one target takes faults: the effects that mean something for it, and its `error_code`. */
export interface TargetRules {
  effects: readonly FaultEffect[];
  /** The `error_code` a `fail` carries when none is given; null when the target takes none. */
  defaultErrorCode: string | null;
  /** Which codes the target accepts, and how the message names them. */
  errorCode: { pattern: RegExp; expected: string } | null;
}

const ALL: readonly FaultEffect[] = FAULT_EFFECTS;
const REASON = { pattern: /^[^\u0000-\u001f]{1,200}$/u, expected: 'a reason of 1 to 200 characters' };
const HTTP_ERROR = { pattern: /^[45]\d\d$/, expected: 'an HTTP error status from 400 to 599, as a string' };

/**
 * Each target's rules. Effects left out mean nothing for that operation (an embedding that is
 * "accepted and never completed" is just a failure), so asking for them is refused at creation.
 */
export const TARGET_RULES: Readonly<Record<FaultTarget, TargetRules>> = {
  'chain.submit': { effects: ALL, defaultErrorCode: 'simulated failure', errorCode: REASON },
  'bank.submit': { effects: ALL, defaultErrorCode: 'simulated failure', errorCode: REASON },
  'mail.send': { effects: ALL, defaultErrorCode: '451', errorCode: { pattern: /^[45]\d\d$/, expected: 'an SMTP reply code from 400 to 599 ("451" temporary, "550" permanent)' } },
  'carrier.sms': { effects: ALL, defaultErrorCode: '30008', errorCode: { pattern: /^\d{5}$/, expected: 'a five-digit Twilio error code such as "30003"' } },
  'carrier.call': { effects: ALL, defaultErrorCode: 'no_answer', errorCode: { pattern: /^(busy|no_answer)$/, expected: '"busy" or "no_answer"' } },
  'webhook.deliver': { effects: ALL, defaultErrorCode: '500', errorCode: HTTP_ERROR },
  'embedder.embed': { effects: ['fail', 'delay'], defaultErrorCode: null, errorCode: null },
  'sandbox.run': { effects: ALL, defaultErrorCode: '137', errorCode: { pattern: /^(?:[1-9]\d?|1\d\d|2[0-4]\d|25[0-5])$/, expected: 'an exit code from 1 to 255, as a string' } },
  'browser.navigate': {
    effects: ['fail', 'delay'],
    defaultErrorCode: 'net::ERR_CONNECTION_REFUSED',
    errorCode: { pattern: /^net::ERR_[A-Z_]{1,60}$/, expected: 'a Chromium network error such as "net::ERR_NAME_NOT_RESOLVED"' },
  },
  'persistence.write': { effects: ['fail'], defaultErrorCode: null, errorCode: null },
};
