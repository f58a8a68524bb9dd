import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserInstance, BrowserLaunchRequest } from '../../core/ports/browser.js';
import { CdpConnection } from './cdp-connection.js';
import { ChromiumInstance } from './chromium-instance.js';
import { findChromium } from './find-chromium.js';

/** How long Chromium may take to print its DevTools address. */
const START_TIMEOUT_MS = 30_000;

/**
 * Flags of every session's Chromium. Headless, a fresh profile, nothing that phones home or
 * installs anything (sync, component updates, extensions, crash reports, background networking),
 * no first-run UI. The DevTools port binds loopback only; clients reach it through the service's
 * proxy, which checks the session secret.
 */
const BASE_FLAGS = [
  '--headless',
  '--remote-debugging-address=127.0.0.1',
  '--remote-debugging-port=0',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-default-apps',
  '--disable-extensions',
  '--disable-sync',
  '--disable-breakpad',
  '--disable-crash-reporter',
  '--disable-domain-reliability',
  '--disable-client-side-phishing-detection',
  '--disable-features=Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider',
  '--metrics-recording-only',
  '--password-store=basic',
  '--use-mock-keychain',
  '--mute-audio',
  '--hide-scrollbars',
  '--disable-gpu',
  '--disable-dev-shm-usage',
];

/** Options of {@link ChromiumBrowser}. */
export interface ChromiumOptions {
  /** The binary (default: found by {@link findChromium}). */
  executablePath?: string;
  /** Extra command-line flags. */
  extraFlags?: string[];
}

/**
 * Real browsers: one headless Chromium process (its own profile directory and process group)
 * per session, spoken to over its loopback DevTools port.
 */
export class ChromiumBrowser implements Browser {
  readonly kind = 'chromium' as const;
  readonly executablePath: string;
  /** Window size minus viewport size, learnt from the first launch (headless windows have a frame). */
  private frame: { width: number; height: number } = { width: 0, height: 0 };
  /**
   * Whether Chromium runs without its OS sandbox: as root (where the sandbox refuses to start), or
   * after a launch failed because the sandbox could not start (no unprivileged user namespaces).
   */
  private noSandbox = process.getuid?.() === 0;

  /** @throws Error when no Chromium binary is found */
  constructor(private readonly options: ChromiumOptions = {}) {
    const found = findChromium(options.executablePath);
    if (!found) throw new Error(options.executablePath ? `no executable Chromium at ${options.executablePath}` : 'no Chromium found (install chromium, or pass --chromium PATH)');
    this.executablePath = found;
  }

  async launch(request: BrowserLaunchRequest): Promise<BrowserInstance> {
    try {
      return await this.start(request);
    } catch (error) {
      if (this.noSandbox || !/sandbox/i.test(String((error as Error).message))) throw error;
      this.noSandbox = true;
      return this.start(request);
    }
  }

  private async start(request: BrowserLaunchRequest): Promise<BrowserInstance> {
    const profile = await mkdtemp(path.join(tmpdir(), `agent-services-${request.sessionId}-`));
    const { width, height } = request.viewport;
    const flags = [
      ...BASE_FLAGS,
      // Running as root, or where user namespaces are unavailable, Chromium's sandbox cannot
      // start; the session then relies on the process boundary and the flags above.
      ...(this.noSandbox ? ['--no-sandbox'] : []),
      `--user-data-dir=${profile}`,
      `--window-size=${width + this.frame.width},${height + this.frame.height}`,
      ...(this.options.extraFlags ?? []),
      request.url ?? 'about:blank',
    ];
    const child = spawn(this.executablePath, flags, { stdio: ['ignore', 'ignore', 'pipe'], detached: true, env: chromiumEnv() });
    let browserUrl: string;
    try {
      browserUrl = await devtoolsUrl(child);
    } catch (error) {
      killGroup(child);
      await rm(profile, { recursive: true, force: true });
      throw error;
    }
    child.unref();
    const controller = await CdpConnection.open(browserUrl);
    const instance = new ChromiumInstance(child, browserUrl, controller, request.viewport, profile);
    await instance.ready();
    await this.fitViewport(instance, request);
    if (request.url) await instance.loaded(request.navigationTimeoutMs);
    return instance;
  }

  /** Makes the page's viewport the requested size, learning the window frame on the first launch. */
  private async fitViewport(instance: ChromiumInstance, request: BrowserLaunchRequest): Promise<void> {
    const inner = await instance.innerSize();
    const missing = { width: request.viewport.width - inner.width, height: request.viewport.height - inner.height };
    if (missing.width === 0 && missing.height === 0) return;
    this.frame = { width: this.frame.width + missing.width, height: this.frame.height + missing.height };
    await instance.resizeBy(missing, request.viewport);
  }
}

/** The environment of a Chromium process: only what it needs, none of the service's secrets. */
function chromiumEnv(): NodeJS.ProcessEnv {
  const keep = ['PATH', 'HOME', 'LANG', 'TZ', 'TMPDIR', 'FONTCONFIG_PATH', 'XDG_RUNTIME_DIR'];
  return Object.fromEntries(keep.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]]])));
}

/** Reads `DevTools listening on ws://...` from Chromium's stderr. */
function devtoolsUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => fail(new Error('Chromium did not start its DevTools endpoint in time')), START_TIMEOUT_MS);
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`Chromium exited with code ${code} before it was ready: ${text.slice(-500)}`)));
    child.stderr!.on('data', (chunk: Buffer) => {
      if (text.length < 64 * 1024) text += chunk.toString('utf8');
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(text);
      if (match) {
        clearTimeout(timer);
        // Chromium keeps writing to stderr; keep draining so it never blocks on a full pipe.
        child.stderr!.removeAllListeners('data');
        child.stderr!.resume();
        resolve(match[1]!);
      }
    });
  });
}

/** Kills Chromium's whole process group (browser, renderers, GPU and utility processes). */
export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
