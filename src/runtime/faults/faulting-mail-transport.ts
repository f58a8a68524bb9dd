import type { Clock } from '../../core/ports/clock.js';
import type { Faults } from '../../core/ports/faults.js';
import { MailTransportError } from '../../core/ports/mail-transport-error.js';
import type { MailTransport, OutboundMail, TransportOutcome } from '../../core/ports/mail-transport.js';
import { currentRequest } from './request-context.js';
import { serviceTimePassed } from './service-time.js';

/**
 * `mail.send` faults around any mail transport. `fail`: the relay refuses the hand-off with an
 * SMTP reply ({@link MailTransportError}, 451 unless the fault says otherwise); `delay`: the
 * hand-off completes after `delay_seconds` of service time; `drop`: the relay answers 250 for
 * every recipient and the message goes nowhere.
 */
export class FaultingMailTransport implements MailTransport {
  constructor(
    private readonly inner: MailTransport,
    private readonly faults: Faults,
    private readonly clock: Clock,
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
    await serviceTimePassed(this.clock, struck.delay_ms);
    return this.inner.send(mail);
  }
}
