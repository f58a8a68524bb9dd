/**
 * Twilio's magic test numbers, with the meaning DECISIONS.md keeps for them as recipients.
 */
export const TEST_NUMBERS = {
  /** Refused at send: 400 invalid_recipient. */
  invalid: '+15005550001',
  /** SMS fails with 30003 (unreachable handset); a call fails `busy`. */
  unreachable: '+15005550002',
  /** SMS fails with 30004 (blocked); a call fails `no_answer`. */
  blocked: '+15005550004',
  /** Delivered, answered. */
  valid: '+15005550006',
} as const;
