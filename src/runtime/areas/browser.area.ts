import { browserConfig, BrowserConfig } from '../../core/browser/browser-config.js';
import { browserHandlers } from '../../core/browser/browser.handlers.js';
import { BrowserSessions, IDLE_JOB } from '../../core/browser/browser.service.js';
import { Browser } from '../../core/ports/browser.js';
import { Scheduler } from '../../core/shared/scheduler.js';
import { ChromiumBrowser } from '../../providers/browser/chromium-browser.js';
import { findChromium } from '../../providers/browser/find-chromium.js';
import type { RuntimeOptions } from '../runtime-options.js';
import type { AreaModule } from './area-module.js';

/** The browser a runtime's options choose: `auto` takes Chromium when a binary is found. */
export function chooseBrowser(options: RuntimeOptions): Browser {
  const given = options.providers?.browser;
  if (given) return given;
  const choice = options.browser?.provider ?? 'auto';
  const path = options.browser?.chromiumPath;
  if (choice === 'chromium' || (choice === 'auto' && findChromium(path))) return new ChromiumBrowser(path === undefined ? {} : { executablePath: path });
  throw new Error('the simulated browser is not available in this build');
}

/** Browser sessions (Compute): Chromium or simulated browsers behind the service's DevTools endpoint. */
export const browserArea: AreaModule = {
  name: 'browser',
  bind({ container, options }) {
    container.bind(BrowserConfig).toConstantValue(browserConfig(options.browser));
    container.bind(Browser).toDynamicValue(() => chooseBrowser(options));
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
};
