import { execFile } from 'node:child_process';
import { browserConfig, BrowserConfig } from '../../core/browser/browser-config.js';
import { browserHandlers } from '../../core/browser/browser.handlers.js';
import { BrowserSessions, IDLE_JOB } from '../../core/browser/browser.service.js';
import { DEVTOOLS_PREFIX } from '../../core/browser/devtools-path.js';
import { BrowserPeers, PEER_PATH } from '../../core/browser/browser-peers.js';
import { Store } from '../../core/ports/store.js';
import { ServiceConfig } from '../../core/shared/service-config.js';
import type { ServiceUrls } from '../service-urls.js';
import { answerPeerRequest, httpPeers, NO_PEERS } from './browser-peer-link.js';
import { Browser, type BrowserInstance, type BrowserLaunchRequest } from '../../core/ports/browser.js';
import { HttpClient } from '../../core/ports/http-client.js';
import { Scheduler } from '../../core/services/scheduler.js';
import { findChromium } from '../../providers/browser/find-chromium.js';
import type { DevtoolsGateway } from '../../providers/browser/devtools-gateway.js';
import type { RuntimeOptions } from '../runtime-options.js';
import { browserRoutes } from '../../core/browser/browser.routes.js';
import { defineArea } from './area-module.js';

/**
 * A provider loaded on its first launch: runtimes that never open a browser session do not pay
 * for loading the browser providers and their WebSocket library at start.
 */
class LazyBrowser implements Browser {
  private loaded: Promise<Browser> | undefined;

  constructor(
    readonly kind: Browser['kind'],
    private readonly load: () => Promise<Browser>,
    /** The Chromium binary, for the readiness probe; none for the simulated browser (it cannot be down). */
    readonly ready?: (signal: AbortSignal) => Promise<void>,
  ) {}

  async launch(request: BrowserLaunchRequest): Promise<BrowserInstance> {
    this.loaded ??= this.load();
    return (await this.loaded).launch(request);
  }

  async shutdown(): Promise<void> {
    await (await this.loaded)?.shutdown?.();
  }
}

/**
 * The browser a runtime's options choose: `auto` (default) takes Chromium when a binary is found.
 * @throws Error when `chromium` is chosen and no binary is found
 */
export function chooseBrowser(options: RuntimeOptions, http: () => HttpClient): Browser {
  const given = options.providers?.browser;
  if (given) return given;
  const choice = options.browser?.provider ?? 'auto';
  const path = options.browser?.chromiumPath;
  const chromium = findChromium(path);
  if (choice === 'chromium' && !chromium) throw new Error(path ? `no executable Chromium at ${path}` : 'no Chromium found (install chromium, or pass --chromium PATH)');
  if (choice === 'chromium' || (choice === 'auto' && chromium)) {
    return new LazyBrowser(
      'chromium',
      async () => new (await import('../../providers/browser/chromium-browser.js')).ChromiumBrowser({ executablePath: chromium! }),
      (signal) => chromiumAnswers(chromium!, signal),
    );
  }
  return new LazyBrowser('simulated', async () => {
    const [{ SimulatedBrowser }, { pageLoader }] = await Promise.all([import('../../providers/browser/sim-browser.js'), import('../../providers/browser/page-loaders.js')]);
    return new SimulatedBrowser(pageLoader({ http: http(), timeoutMs: options.browser?.navigationTimeoutMs ?? 30_000 }));
  });
}

/**
 * The readiness probe of Chromium (`GET /readyz`): the binary is still there and prints its
 * version (a package upgrade or removal under a running service shows here, before a session
 * fails to start). Cheap: no browser starts.
 * @throws Error when it does not, or when `signal` aborts first
 */
function chromiumAnswers(executable: string, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(executable, ['--version'], { signal }, (error) => (error ? reject(new Error(`${executable} --version: ${error.message}`)) : resolve()));
  });
}

const gateways = new WeakMap<object, Promise<DevtoolsGateway>>();
const sweepers = new WeakMap<object, ReturnType<typeof setInterval>>();
/**
 * Real time between two sweeps for sessions of processes that went away: a session of a killed
 * process ends `lost` at most this long after the database noticed the process's connection end.
 */
const SWEEP_INTERVAL_MS = 5_000;

/** Browser sessions (Compute): Chromium or simulated browsers behind the service's DevTools endpoint. */
export const browserArea = defineArea({
  name: 'browser',
  routes: browserRoutes,
  bind({ container, options }) {
    container.bind(BrowserConfig).toConstantValue(browserConfig(options.browser));
    container.bind(Browser).toDynamicValue(() => chooseBrowser(options, () => container.get(HttpClient)));
    // A world other processes serve too: sessions are owned by the process running their browser.
    container.bind(BrowserPeers).toDynamicValue(() => (container.get(Store).shared ? httpPeers(() => (options.advertiseUrl ?? (container.get(ServiceConfig) as ServiceUrls).listenAddress).replace(/\/$/, '')) : NO_PEERS));
    container.bind(BrowserSessions).toSelf();
  },
  start({ container }) {
    const sessions = container.get(BrowserSessions);
    container.get(Scheduler).handle(IDLE_JOB, (data, job) => sessions.idleCheck(data, job));
    if (container.get(Store).shared) {
      let sweeping = false;
      const timer = setInterval(() => {
        if (sweeping) return;
        sweeping = true;
        // A failed sweep (the database away for a moment) is simply done again next time.
        void sessions
          .sweep()
          .catch(() => undefined)
          .finally(() => (sweeping = false));
      }, SWEEP_INTERVAL_MS);
      timer.unref();
      sweepers.set(container, timer);
    }
    return browserHandlers(sessions);
  },
  restored({ container }) {
    void container.get(BrowserSessions).restored();
  },
  edges({ container }) {
    const gateway = () => {
      let loading = gateways.get(container);
      if (!loading) {
        loading = import('../../providers/browser/devtools-gateway.js').then(({ DevtoolsGateway }) => new DevtoolsGateway(container.get(BrowserSessions)));
        gateways.set(container, loading);
      }
      return loading;
    };
    const self = container.get(BrowserPeers).self;
    const peer = self ? [{ kind: 'http' as const, prefix: PEER_PATH, maxBodyBytes: 4096, fetch: (request: Request) => answerPeerRequest(request, self, container.get(BrowserSessions)) }] : [];
    return [
      ...peer,
      {
        kind: 'upgrade',
        prefix: DEVTOOLS_PREFIX,
        upgrade: (request, socket, head) => {
          void gateway()
            .then((loaded) => loaded.upgrade(request, socket, head))
            .catch(() => socket.destroy());
        },
      },
    ];
  },
  async stop({ container }) {
    clearInterval(sweepers.get(container));
    (await gateways.get(container))?.close();
    await container.get(BrowserSessions).stopAll();
  },
});
