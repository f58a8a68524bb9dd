import { IdentityService } from '../../core/identity/identity.service.js';
import { CallService } from '../../core/phone/call.service.js';
import { CarrierReports } from '../../core/phone/carrier-reports.js';
import { PhoneConfig, phoneConfig } from '../../core/phone/phone-config.js';
import { DEFAULT_PHONE_COUNTRY, PhoneLines } from '../../core/phone/phone-lines.js';
import { CALL_STEP_JOB, SMS_STEP_JOB } from '../../core/phone/phone.records.js';
import { phoneHandlers } from '../../core/phone/phone.handlers.js';
import { SmsService } from '../../core/phone/sms.service.js';
import { TwimlFetcher } from '../../core/phone/twiml-fetch.js';
import { Telephony } from '../../core/ports/telephony.js';
import { Scheduler } from '../../core/services/scheduler.js';
import { SimCarrier } from '../../sim/sim-carrier.js';
import { phoneRoutes, phoneSimRoutes } from '../../core/phone/phone.routes.js';
import { PhoneCreationFields } from '../../core/phone/phone.schema.js';
import { defineArea } from './area-module.js';

/**
 * Phone: a number per agent drawn at creation, SMS with segmentation and a lifecycle on the
 * clock, inbound SMS, outbound calls with scripts or TwiML; the simulated carrier unless
 * `providers.telephony` is given (e.g. `TwilioTelephony`, whose callbacks arrive on the edge it
 * offers through the port's `callbackEdge`).
 */
export const phoneArea = defineArea({
  name: 'phone',
  routes: phoneRoutes,
  simRoutes: phoneSimRoutes,
  creationFields: PhoneCreationFields,
  bind({ container, options }) {
    container.bind(PhoneConfig).toConstantValue(phoneConfig(options.phone));
    const telephony = options.providers?.telephony;
    if (telephony) container.bind(Telephony).toConstantValue(telephony);
    else container.bind(Telephony).to(SimCarrier);
    container.bind(PhoneLines).toSelf();
    container.bind(TwimlFetcher).toSelf();
    container.bind(SmsService).toSelf();
    container.bind(CallService).toSelf();
    container.bind(CarrierReports).toSelf();
  },
  start({ container }) {
    const lines = container.get(PhoneLines);
    const sms = container.get(SmsService);
    const calls = container.get(CallService);
    container.get(IdentityService).onAgentCreated(async (tx, agent, request) => {
      const country = typeof request.phone_country === 'string' ? request.phone_country : DEFAULT_PHONE_COUNTRY;
      return { phone_number: (await lines.assign(tx, agent.agent_id, country)).phone_number };
    });
    const scheduler = container.get(Scheduler);
    scheduler.handle(SMS_STEP_JOB, (step) => sms.step(step));
    scheduler.handle(CALL_STEP_JOB, (step) => calls.step(step));
    return phoneHandlers(lines, sms, calls);
  },
  edges({ container }) {
    // A carrier with callbacks (Twilio) offers its edge through the port; the simulated one has none.
    const edge = container.get(Telephony).callbackEdge?.(container.get(CarrierReports));
    return edge ? [edge] : [];
  },
});
