import { inject, injectable } from '../shared/di.js';
import type { TelephonyReports } from '../ports/telephony.js';
import { CallService } from './call.service.js';
import { SmsService } from './sms.service.js';

/** Where a real carrier's callbacks land: status reports and inbound messages, applied to the records. */
@injectable()
export class CarrierReports implements TelephonyReports {
  constructor(
    @inject(SmsService) private readonly sms: SmsService,
    @inject(CallService) private readonly calls: CallService,
  ) {}

  smsStatus(carrierId: string, status: 'sent' | 'delivered' | 'failed', errorCode: string | null): Promise<void> {
    return this.sms.report(carrierId, status, errorCode);
  }

  callStatus(carrierId: string, status: 'ringing' | 'in-progress' | 'completed' | 'failed', details: { duration_seconds?: number; failure_reason?: string }): Promise<void> {
    return this.calls.report(carrierId, status, details);
  }

  async inboundSms(message: { from: string; to: string; body: string; carrier_id?: string }): Promise<void> {
    const { carrier_id, ...body } = message;
    await this.sms.receive(body, carrier_id);
  }
}
