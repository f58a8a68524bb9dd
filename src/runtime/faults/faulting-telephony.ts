import type { Faults, StruckFault } from '../../core/ports/faults.js';
import type { StoreTransaction } from '../../core/ports/store.js';
import type { CallPlan, CallRefusal, CarrierCall, CarrierSms, SmsPlan, Telephony } from '../../core/ports/telephony.js';

/** An instant no clock reaches: what a dropped message or call waits for. */
export const NEVER_MS = 8_640_000_000_000_000;

/**
 * `carrier.sms` and `carrier.call` faults around a carrier that plans on the service clock (the
 * simulated one). SMS: `fail` ends it `failed` with the fault's Twilio `error_code` (30008 by
 * default), `delay` moves `sent` and the final status later, `drop` leaves it `sent` with no
 * delivery report ever. Calls: `fail` ends it unanswered (`no_answer` or `busy`), `delay` makes it
 * ring and answer later, `drop` leaves it ringing. A carrier that reports later (a real one, whose
 * plans are null) is passed through. Laid over the carrier with `overlay`, which keeps the rest.
 */
export class FaultingTelephony implements Pick<Telephony, 'planSms' | 'planCall'> {
  constructor(
    private readonly inner: Telephony,
    private readonly faults: Faults,
  ) {}

  async planSms(tx: StoreTransaction, sms: CarrierSms): Promise<SmsPlan | null> {
    const plan = await this.inner.planSms(tx, sms);
    if (!plan) return plan;
    const struck = await this.strike(tx, 'carrier.sms', sms.agent_id, { message_id: sms.message_id, from: sms.from, to: sms.to });
    if (!struck) return plan;
    if (struck.effect === 'fail') return { ...plan, fate: { status: 'failed', error_code: struck.error_code ?? '30008' } };
    if (struck.effect === 'drop') return { ...plan, settles_at_ms: NEVER_MS };
    return { ...plan, sent_at_ms: plan.sent_at_ms + struck.delay_ms, settles_at_ms: plan.settles_at_ms + struck.delay_ms };
  }

  async planCall(tx: StoreTransaction, call: CarrierCall): Promise<CallPlan | null> {
    const plan = await this.inner.planCall(tx, call);
    if (!plan) return plan;
    const struck = await this.strike(tx, 'carrier.call', call.agent_id, { call_id: call.call_id, from: call.from, to: call.to });
    if (!struck) return plan;
    if (struck.effect === 'fail') return { ...plan, refusal: (struck.error_code ?? 'no_answer') as CallRefusal };
    if (struck.effect === 'drop') return { ...plan, answers_at_ms: NEVER_MS, refusal: null };
    return { ringing_at_ms: plan.ringing_at_ms + struck.delay_ms, answers_at_ms: plan.answers_at_ms + struck.delay_ms, refusal: plan.refusal };
  }

  private async strike(tx: StoreTransaction, target: 'carrier.sms' | 'carrier.call', agentId: string, fields: Record<string, string>): Promise<StruckFault | null> {
    if (!(await this.faults.armed(tx, target))) return null;
    return await this.faults.strike(tx, target, { agent_id: agentId, fields });
  }
}
