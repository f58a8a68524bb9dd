import { bindRoute, callerOf, type BoundRoute } from '../api/route.js';
import { emailRoutes as routes, emailSimRoutes as simRoutes } from './email.routes.js';
import type { EmailService } from './email.service.js';
import type { InboundMailService } from './inbound.service.js';
import type { OutboundDelivery } from './outbound.js';

/** Binds the email routes (and the email part of the control plane) to the services. */
export function emailHandlers(email: EmailService, inbound: InboundMailService, outbound: OutboundDelivery): BoundRoute[] {
  return [
    bindRoute(routes.send, (context, { body }) => email.send(callerOf(context), body)),
    bindRoute(routes.list, (context, { query }) => email.list(callerOf(context), query)),
    bindRoute(routes.get, (context, { params }) => email.get(callerOf(context), params.id)),
    bindRoute(routes.reply, (context, { params, body }) => email.reply(callerOf(context), params.id, body)),
    bindRoute(routes.downloadAttachment, (context, { params }) => email.download(callerOf(context), params.attachment_id)),
    bindRoute(simRoutes.emailInbound, (_context, { body }) => inbound.receive(body)),
    bindRoute(simRoutes.emailOutbox, () => outbound.outbox()),
  ];
}
