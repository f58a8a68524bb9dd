import { rfc5322Date } from './compose.js';

/** One recipient a bounce reports. */
export interface FailedRecipient {
  address: string;
  /** The last SMTP reply code (null when the relay never answered). */
  replyCode: number | null;
  /** The last reply or error text. */
  diagnostic: string;
  /** `refused`: a permanent (5xx) answer; `expired`: still failing temporarily when the queue lifetime ran out. */
  reason: 'refused' | 'expired';
  /** When the last attempt was made, ms. */
  lastAttemptMs: number;
}

/** The parts of an RFC 3464 delivery status notification, ready to store as a message. */
export interface DeliveryReport {
  subject: string;
  /** The human-readable first part. */
  text: string;
  /** The `message/delivery-status` part (per-message fields, a blank line, then one block per recipient). */
  status: string;
  /** The `text/rfc822-headers` part: the original message's headers. */
  originalHeaders: string;
}

/**
 * The enhanced status code (RFC 3463) of a failure: the one the reply carried (`550 5.1.1 ...`),
 * else a generic one for its class: 5.0.0 for a refusal, 4.4.7 (delivery time expired) for a
 * message given up while it still failed temporarily.
 */
export function enhancedStatus(recipient: Pick<FailedRecipient, 'diagnostic' | 'reason' | 'replyCode'>): string {
  const carried = /\b([245]\.\d{1,3}\.\d{1,3})\b/.exec(recipient.diagnostic)?.[1];
  if (carried && (recipient.reason === 'expired' ? carried.startsWith('4') : carried.startsWith('5'))) return carried;
  return recipient.reason === 'expired' ? '4.4.7' : '5.0.0';
}

/** A header field value on one line (CR and LF would end the field). */
function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').trim();
}

/**
 * Builds the delivery status notification (RFC 3464) that tells a sender some recipients of one
 * of its messages will never get it, in the wording of common MTAs ("Undelivered Mail Returned to
 * Sender"): a readable explanation, the machine-readable `message/delivery-status` fields
 * (Reporting-MTA, Arrival-Date, and per recipient Final-Recipient, Action, Status, Diagnostic-Code,
 * Last-Attempt-Date) and the original headers.
 */
export function deliveryReport(input: { serviceDomain: string; arrivalMs: number; originalHeaders: Readonly<Record<string, string>>; subject: string; recipients: readonly FailedRecipient[] }): DeliveryReport {
  const explanations = input.recipients.map((recipient) => {
    const why = recipient.reason === 'expired' ? 'delivery was given up after retrying for too long; the last answer was' : 'the receiving server refused it with';
    return `<${recipient.address}>: ${why}:\n    ${oneLine(recipient.diagnostic) || 'no answer'}`;
  });
  const text = [
    `This is the mail system at ${input.serviceDomain}.`,
    '',
    "I'm sorry to have to inform you that your message could not",
    'be delivered to one or more recipients.',
    '',
    `Subject: ${oneLine(input.subject)}`,
    '',
    ...explanations,
  ].join('\n');
  const perMessage = [`Reporting-MTA: dns; ${input.serviceDomain}`, `Arrival-Date: ${rfc5322Date(input.arrivalMs)}`];
  const perRecipient = input.recipients.map((recipient) =>
    [
      `Final-Recipient: rfc822; ${recipient.address}`,
      'Action: failed',
      `Status: ${enhancedStatus(recipient)}`,
      `Diagnostic-Code: smtp; ${oneLine(recipient.diagnostic) || 'no answer from the relay'}`,
      `Last-Attempt-Date: ${rfc5322Date(recipient.lastAttemptMs)}`,
    ].join('\r\n'),
  );
  const status = [perMessage.join('\r\n'), ...perRecipient].join('\r\n\r\n') + '\r\n';
  const originalHeaders =
    Object.entries(input.originalHeaders)
      .map(([name, value]) => `${name}: ${oneLine(value)}`)
      .join('\r\n') + '\r\n';
  return { subject: 'Undelivered Mail Returned to Sender', text, status, originalHeaders };
}
