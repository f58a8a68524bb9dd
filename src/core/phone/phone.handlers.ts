import { bindRoute, bindStagedRoute, callerOf, type BoundRoute } from '../api/route.js';
import type { CallService } from './call.service.js';
import type { PhoneLines } from './phone-lines.js';
import { phoneRoutes as routes, phoneSimRoutes as simRoutes } from './phone.routes.js';
import type { SmsService } from './sms.service.js';

/** Binds the phone routes (and the phone part of the control plane) to the services. */
export function phoneHandlers(lines: PhoneLines, sms: SmsService, calls: CallService): BoundRoute[] {
  return [
    bindRoute(routes.getNumber, (context) => lines.info(callerOf(context))),
    bindStagedRoute(routes.sendSms, (context, { body }) => sms.send(callerOf(context), body, context.signal)),
    bindRoute(routes.listSms, (context, { query }) => sms.list(callerOf(context), query)),
    bindRoute(routes.getSms, (context, { params }) => sms.get(callerOf(context), params.message_id)),
    bindRoute(routes.listMessages, (context, { query }) => sms.inbound(callerOf(context), query)),
    bindStagedRoute(routes.placeCall, (context, { body }) => calls.place(callerOf(context), body, context.signal)),
    bindRoute(routes.listCalls, (context, { query }) => calls.list(callerOf(context), query)),
    bindRoute(routes.getCall, (context, { params }) => calls.get(callerOf(context), params.call_id)),
    bindRoute(simRoutes.phoneInbound, (_context, { body }) => sms.receive(body)),
  ];
}
