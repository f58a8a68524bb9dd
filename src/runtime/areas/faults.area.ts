import { Browser } from '../../core/ports/browser.js';
import { Clock } from '../../core/ports/clock.js';
import { Embedder } from '../../core/ports/embedder.js';
import { Faults } from '../../core/ports/faults.js';
import { MailTransport } from '../../core/ports/mail-transport.js';
import { Sandbox } from '../../core/ports/sandbox.js';
import { Telephony } from '../../core/ports/telephony.js';
import { FaultService } from '../../core/faults/fault.service.js';
import { Store } from '../../core/ports/store.js';
import { faultsHandlers } from '../../core/faults/faults.handlers.js';
import { FaultingBrowser } from '../faults/faulting-browser.js';
import { FaultingEmbedder } from '../faults/faulting-embedder.js';
import { FaultingMailTransport } from '../faults/faulting-mail-transport.js';
import { FaultingSandbox } from '../faults/faulting-sandbox.js';
import { FaultingTelephony } from '../faults/faulting-telephony.js';
import { FaultsGate, followFaults } from '../faults/faults-gate.js';
import { overlay } from '../faults/overlay.js';
import { faultsSimRoutes } from '../../core/faults/faults.routes.js';
import { defineArea } from './area-module.js';

/**
 * The fault language (`/_sim/faults`). Ports that have no fault call site of their own are
 * wrapped here, when the container first builds them, in decorators that consult the
 * {@link Faults} port: mail transport, carrier, embedder, sandbox and browser. The payment rails
 * and webhook deliveries consult it where they act; the store is wrapped by the runtime.
 */
export const faultsArea = defineArea({
  name: 'faults',
  simRoutes: faultsSimRoutes,
  bind({ container }) {
    container.bind(FaultService).toSelf();
    container.bind(Faults).toService(FaultService);
    // The answer every API request asks before it runs, kept in this process (faults-gate.ts).
    container.bind(FaultsGate).toDynamicValue((context) => followFaults(context.get(FaultService), context.get(Store)));
    const faults = () => container.get(Faults);
    const clock = () => container.get(Clock);
    // Overlays, not wrappers: every member a decorator does not replace (an embedder's optional
    // score calibration, a sandbox's close, a carrier's callback edge) stays the original's.
    container.onActivation(MailTransport, (_context, transport) => {
      const faulting = new FaultingMailTransport(transport, faults());
      return overlay(transport, { send: faulting.send.bind(faulting) });
    });
    container.onActivation(Telephony, (_context, telephony) => {
      // An overlay, not a wrapper: the optional dispatch methods and callback edge stay the carrier's.
      const faulting = new FaultingTelephony(telephony, faults());
      return overlay(telephony, { planSms: faulting.planSms.bind(faulting), planCall: faulting.planCall.bind(faulting) });
    });
    container.onActivation(Embedder, (_context, embedder) => {
      const faulting = new FaultingEmbedder(embedder, faults(), clock());
      return overlay(embedder, { embed: faulting.embed.bind(faulting) });
    });
    container.onActivation(Sandbox, (_context, sandbox) => {
      const faulting = new FaultingSandbox(sandbox, faults(), clock());
      return overlay(sandbox, { run: faulting.run.bind(faulting) });
    });
    container.onActivation(Browser, (_context, browser) => {
      const faulting = new FaultingBrowser(browser, faults(), clock());
      return overlay(browser, { launch: faulting.launch.bind(faulting) });
    });
  },
  start({ container }) {
    return faultsHandlers(container.get(FaultService));
  },
  restored({ container }) {
    // The store was replaced whole (a restore, a durable store's world resumed): its faults may differ.
    container.get(FaultsGate).invalidate();
  },
});
