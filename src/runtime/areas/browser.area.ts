import { browserConfig, BrowserConfig } from '../../core/browser/browser-config.js';
import { browserHandlers } from '../../core/browser/browser.handlers.js';
import { BrowserSessions, IDLE_JOB } from '../../core/browser/browser.service.js';
import { DEVTOOLS_PREFIX } from '../../core/browser/devtools-path.js';
import { Browser } from '../../core/ports/browser.js';
import { HttpClient } from '../../core/ports/http-client.js';
import { Scheduler } from '../../core/shared/scheduler.js';
import { ChromiumBrowser } from '../../providers/browser/chromium-browser.js';
import { DevtoolsGateway } from '../../providers/browser/devtools-gateway.js';
import { findChromium } from '../../providers/browser/find-chromium.js';
import { pageLoader } from '../../providers/browser/page-loaders.js';
import { SimulatedBrowser } from '../../providers/browser/sim-browser.js';
import type { RuntimeOptions } from '../runtime-options.js';
import type { AreaModule } from './area-module.js';

/** The browser a runtime's options choose: `auto` (default) takes Chromium when a binary is found. */
export function chooseBrowser(options: RuntimeOptions, http: HttpClient): Browser {
  const given = options.providers?.browser;
  if (given) return given;
  const choice = options.browser?.provider ?? 'auto';
  const path = options.browser?.chromiumPath;
  if (choice === 'chromium' || (choice === 'auto' && findChromium(path))) return new ChromiumBrowser(path === undefined ? {} : { executablePath: path });
  return new SimulatedBrowser(pageLoader({ http, timeoutMs: options.browser?.navigationTimeoutMs ?? 30_000 }));
}

const gateways = new WeakMap<object, DevtoolsGateway>();

/** Browser sessions (Compute): Chromium or simulated browsers behind the service's DevTools endpoint. */
export const browserArea: AreaModule = {
  name: 'browser',
  bind({ container, options }) {
    container.bind(BrowserConfig).toConstantValue(browserConfig(options.browser));
    container.bind(Browser).toDynamicValue(() => chooseBrowser(options, container.get(HttpClient)));
    container.bind(BrowserSessions).toSelf();
  },
  start({ container }) {
    const sessions = container.get(BrowserSessions);
    container.get(Scheduler).handle(IDLE_JOB, (job) => sessions.idleCheck(job));
    return browserHandlers(sessions);
  },
  restored({ container }) {
    void container.get(BrowserSessions).restored();
  },
  edges({ container }) {
    const gateway = new DevtoolsGateway(container.get(BrowserSessions));
    gateways.set(container, gateway);
    return [{ kind: 'upgrade', prefix: DEVTOOLS_PREFIX, upgrade: (request, socket, head) => gateway.upgrade(request, socket, head) }];
  },
  async stop({ container }) {
    gateways.get(container)?.close();
    await container.get(BrowserSessions).stopAll();
  },
};
