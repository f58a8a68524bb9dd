import { MailTransportError, type MailTransport, type OutboundMail, type TransportOutcome } from '../core/ports/mail-transport.js';

/**
 * The simulated outside world for outbound mail: nothing leaves the process; the service's outbox
 * (`GET /_sim/email/outbox`) keeps every message with its outcome. Every recipient is accepted
 * except those at a domain under `.invalid` (RFC 2606, reserved to be invalid), which are refused,
 * with 550 (permanent), so a test can exercise a bounce deterministically (`nobody@bounce.invalid`).
 */
export class SimMailTransport implements MailTransport {
  async send(mail: OutboundMail): Promise<TransportOutcome> {
    const refused = (address: string) => /\.invalid$/i.test(address.slice(address.lastIndexOf('@') + 1));
    const accepted = mail.envelope.to.filter((address) => !refused(address));
    const rejected = mail.envelope.to.filter(refused);
    const refusal = (address: string) => `550 5.1.2 <${address}>: domain does not exist (simulated)`;
    if (accepted.length === 0) throw new MailTransportError(550, `550 5.1.2 ${rejected.join(', ')}: domain does not exist (simulated)`);
    return {
      accepted,
      rejected,
      response: rejected.length === 0 ? '250 2.0.0 accepted (simulated)' : `550 5.1.2 ${rejected.join(', ')}: domain does not exist (simulated)`,
      refusals: rejected.map((address) => ({ address, replyCode: 550, response: refusal(address) })),
    };
  }
}
