import { inject, injectable } from '../core/shared/di.js';
import { Clock } from '../core/ports/clock.js';
import type { CallPlan, CarrierCall, CarrierSms, SmsPlan, Telephony } from '../core/ports/telephony.js';
import { PhoneConfig } from '../core/phone/phone-config.js';
import { TEST_NUMBERS } from '../core/phone/test-numbers.js';

/**
 * The simulated phone network: every message is `sent` after a delay and then delivered, and every
 * call rings and is answered, on the service clock, except for Twilio's test numbers, which fail
 * as Twilio's test credentials make them fail (SMS 30003 and 30004, calls busy and no answer).
 * Its plans are pure functions of the clock and the recipient, so a restored world plays out the
 * same way.
 */
@injectable()
export class SimCarrier implements Telephony {
  constructor(
    @inject(Clock) private readonly clock: Clock,
    @inject(PhoneConfig) private readonly config: PhoneConfig,
  ) {}

  async planSms(_tx: unknown, sms: CarrierSms): Promise<SmsPlan> {
    const sentAt = this.clock.now() + this.config.smsSentAfterMs;
    const settlesAt = sentAt + this.config.smsDeliveredAfterMs;
    if (sms.to === TEST_NUMBERS.unreachable) return { sent_at_ms: sentAt, settles_at_ms: settlesAt, fate: { status: 'failed', error_code: '30003' } };
    if (sms.to === TEST_NUMBERS.blocked) return { sent_at_ms: sentAt, settles_at_ms: settlesAt, fate: { status: 'failed', error_code: '30004' } };
    return { sent_at_ms: sentAt, settles_at_ms: settlesAt, fate: { status: 'delivered' } };
  }

  async planCall(_tx: unknown, call: CarrierCall): Promise<CallPlan> {
    const ringingAt = this.clock.now() + this.config.callRingingAfterMs;
    const answersAt = ringingAt + this.config.callAnsweredAfterMs;
    const refusal = call.to === TEST_NUMBERS.unreachable ? 'busy' : call.to === TEST_NUMBERS.blocked ? 'no_answer' : null;
    return { ringing_at_ms: ringingAt, answers_at_ms: answersAt, refusal };
  }
}
