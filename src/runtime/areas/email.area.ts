import type { Container } from 'inversify';
import { BounceWriter } from '../../core/email/bounce.js';
import { emailHandlers } from '../../core/email/email.handlers.js';
import { EmailService } from '../../core/email/email.service.js';
import { InboundMailService } from '../../core/email/inbound.service.js';
import { Mailboxes } from '../../core/email/mailboxes.js';
import { OUTBOUND_ATTEMPT_JOB, OutboundDelivery } from '../../core/email/outbound.js';
import { RetryPolicy, retryPolicy } from '../../core/email/retry-policy.js';
import { MailParser } from '../../core/ports/mail-parser.js';
import { MailTransport } from '../../core/ports/mail-transport.js';
import { Scheduler } from '../../core/services/scheduler.js';
import { ServiceConfig } from '../../core/shared/service-config.js';
import { MailparserMailParser } from '../../providers/mail/mailparser-mail-parser.js';
import type { RunningSmtpServer } from '../../providers/mail/smtp-listener.js';
import { SimMailTransport } from '../../sim/sim-mail-transport.js';
import { SmtpMailTransport } from '../../providers/mail/smtp-mail-transport.js';
import { emailRoutes, emailSimRoutes } from '../../core/email/email.routes.js';
import { defineArea } from './area-module.js';

/** The SMTP listener started for a runtime (by its container), closed by the area's `stop()`. */
const listeners = new WeakMap<Container, Promise<RunningSmtpServer>>();

/**
 * Email: mailboxes, threading, attachments, loopback delivery between agents, the durable outbound
 * queue (the simulated transport unless `email.relay` or `providers.mailTransport` is given, e.g.
 * `SmtpMailTransport`) with retries and bounces, and inbound mail from outside: the control plane
 * and, with `email.smtp`, the SMTP listener edge.
 */
export const emailArea = defineArea({
  name: 'email',
  routes: emailRoutes,
  simRoutes: emailSimRoutes,
  bind({ container, options }) {
    const relay = options.email?.relay;
    container.bind(MailTransport).toConstantValue(options.providers?.mailTransport ?? (relay ? SmtpMailTransport.fromUrl(relay) : new SimMailTransport()));
    container.bind(MailParser).toConstantValue(new MailparserMailParser());
    container.bind(RetryPolicy).toConstantValue(retryPolicy(options.email?.queue));
    container.bind(Mailboxes).toSelf();
    container.bind(BounceWriter).toSelf();
    container.bind(OutboundDelivery).toSelf();
    container.bind(EmailService).toSelf();
    container.bind(InboundMailService).toSelf();
  },
  start({ container }) {
    const outbound = container.get(OutboundDelivery);
    container.get(Scheduler).handle(OUTBOUND_ATTEMPT_JOB, (job) => outbound.run(job));
    return emailHandlers(container.get(EmailService), container.get(InboundMailService), outbound);
  },
  edges({ container, options }) {
    const smtp = options.email?.smtp;
    if (!smtp) return [];
    return [
      {
        kind: 'listener',
        name: 'smtp',
        listen: async () => {
          let running = listeners.get(container);
          if (!running) {
            running = import('../../providers/mail/smtp-listener.js').then(({ startSmtpListener }) => startSmtpListener(container.get(InboundMailService), container.get(ServiceConfig).serviceDomain, smtp));
            listeners.set(container, running);
          }
          const { host, port } = await running;
          return { name: 'smtp', host, port };
        },
      },
    ];
  },
  restored({ container }) {
    container.get(OutboundDelivery).restored();
  },
  async stop({ container }) {
    container.get(OutboundDelivery).stop();
    const running = listeners.get(container);
    listeners.delete(container);
    await (await running?.catch(() => undefined))?.close();
  },
});
