import { emailHandlers } from '../../core/email/email.handlers.js';
import { EmailService } from '../../core/email/email.service.js';
import { InboundMailService } from '../../core/email/inbound.service.js';
import { Mailboxes } from '../../core/email/mailboxes.js';
import { OutboundDelivery } from '../../core/email/outbound.js';
import { MailParser } from '../../core/ports/mail-parser.js';
import { MailTransport } from '../../core/ports/mail-transport.js';
import { MailparserMailParser } from '../../providers/mail/mailparser-mail-parser.js';
import { SimMailTransport } from '../../sim/sim-mail-transport.js';
import { emailRoutes, emailSimRoutes } from '../../core/email/email.routes.js';
import { defineArea } from './area-module.js';

/**
 * Email: mailboxes, threading, attachments, loopback delivery between agents, the outbound
 * transport (simulated unless `providers.mailTransport` is given, e.g. `SmtpMailTransport`) and
 * inbound mail from outside (the control plane and, through `runtime.mail`, the SMTP listener).
 */
export const emailArea = defineArea({
  name: 'email',
  routes: emailRoutes,
  simRoutes: emailSimRoutes,
  bind({ container, options }) {
    container.bind(MailTransport).toConstantValue(options.providers?.mailTransport ?? new SimMailTransport());
    container.bind(MailParser).toConstantValue(new MailparserMailParser());
    container.bind(Mailboxes).toSelf();
    container.bind(OutboundDelivery).toSelf();
    container.bind(EmailService).toSelf();
    container.bind(InboundMailService).toSelf();
  },
  start({ container }) {
    return emailHandlers(container.get(EmailService), container.get(InboundMailService), container.get(OutboundDelivery));
  },
});
