import type { Faults } from '../../core/ports/faults.js';
import { MailTransportError, type MailTransport, type OutboundMail, type TransportOutcome } from '../../core/ports/mail-transport.js';
import { currentRequest } from './request-context.js';

/**
 * `mail.send` faults around any mail transport. `fail`: the relay refuses the hand-off with an
 * SMTP reply ({@link MailTransportError}, 451 unless the fault says otherwise); `delay`: the relay
 * answers 451 asking to be tried again after `delay_seconds` of service time, so the outbound
 * queue hands the message off that much later (waiting inside the queue's clock job instead would
 * hold the clock); `drop`: the relay answers 250 for every recipient and the message goes nowhere.
 */
export class FaultingMailTransport implements MailTransport {
  constructor(
    private readonly inner: MailTransport,
    private readonly faults: Faults,
  ) {}

  async send(mail: OutboundMail): Promise<TransportOutcome> {
    const struck = await this.faults.strikeNow('mail.send', {
      agent_id: currentRequest()?.agent_id ?? null,
      fields: { message_id: mail.messageId, from: mail.from, to: [...mail.envelope.to] },
    });
    if (!struck) return this.inner.send(mail);
    if (struck.effect === 'fail') {
      const code = Number(struck.error_code ?? '451');
      const enhanced = code >= 500 ? '5.0.0 permanent failure' : '4.3.0 temporary failure, try again later';
      throw new MailTransportError(code, `${code} ${enhanced}`);
    }
    if (struck.effect === 'drop') return { accepted: [...mail.envelope.to], rejected: [], response: '250 2.0.0 OK queued' };
    throw new MailTransportError(451, `451 4.4.7 delivery delayed, try again in ${struck.delay_ms / 1000} s`, struck.delay_ms);
  }
}
