import type { ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import WebSocket from 'ws';
import { NoOpenPageError, type BrowserInstance, type CdpChannel, type Screenshot, type Viewport } from '../../core/ports/browser.js';
import type { CdpConnection } from './cdp-connection.js';
import { guardClientMessage } from './cdp-guard.js';
import { pngSize } from './png-size.js';

/** Every Chromium still running, killed if the service process exits without closing them. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running)
    if (child.pid !== undefined)
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
});

/**
 * One session's Chromium: client connections are piped frame by frame to a connection of their
 * own on Chromium's DevTools endpoint (so each client has its own protocol sessions, as with a
 * direct connection); the service keeps one more connection for screenshots and page tracking.
 */
export class ChromiumInstance implements BrowserInstance {
  /** Open page targets, oldest first. */
  private readonly pages: string[] = [];
  private readonly pageSessions = new Map<string, string>();
  private readonly clients = new Set<{ client: CdpChannel; upstream: WebSocket }>();
  private readonly exitListeners: Array<() => void> = [];
  private readonly exited: Promise<void>;
  private closing = false;

  constructor(
    private readonly child: ChildProcess,
    private readonly browserUrl: string,
    private readonly controller: CdpConnection,
    private readonly viewport: Viewport,
    private readonly profile: string,
  ) {
    running.add(child);
    this.exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
    void this.exited.then(() => {
      running.delete(child);
      if (!this.closing) for (const listener of this.exitListeners) listener();
    });
  }

  /** Starts tracking page targets. */
  async ready(): Promise<void> {
    this.controller.on((method, params) => {
      const info = params.targetInfo as { targetId: string; type: string } | undefined;
      if (method === 'Target.targetCreated' && info?.type === 'page' && !this.pages.includes(info.targetId)) this.pages.push(info.targetId);
      if (method === 'Target.targetDestroyed') {
        const index = this.pages.indexOf(String(params.targetId));
        if (index >= 0) this.pages.splice(index, 1);
        this.pageSessions.delete(String(params.targetId));
      }
    });
    await this.controller.send('Target.setDiscoverTargets', { discover: true });
  }

  /** The first page's inner size in CSS pixels. */
  async innerSize(): Promise<Viewport> {
    const sessionId = await this.sessionOf(this.pages[0]!);
    const answer = await this.controller.send('Runtime.evaluate', { expression: '[innerWidth, innerHeight]', returnByValue: true }, sessionId);
    const [width, height] = (answer.result as { value: [number, number] }).value;
    return { width, height };
  }

  /** Waits until the first page's document has loaded, for at most `timeoutMs`. */
  async loaded(timeoutMs: number): Promise<void> {
    const sessionId = await this.sessionOf(this.pages[0]!);
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const answer = await this.controller.send('Runtime.evaluate', { expression: "document.readyState === 'complete' && location.href !== 'about:blank'", returnByValue: true }, sessionId);
      if ((answer.result as { value?: unknown }).value === true) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Grows the window by `delta` and waits until the first page's viewport is `target`. */
  async resizeBy(delta: Viewport, target: Viewport): Promise<void> {
    const window = await this.controller.send('Browser.getWindowForTarget', { targetId: this.pages[0] });
    const bounds = window.bounds as { width: number; height: number };
    await this.controller.send('Browser.setWindowBounds', { windowId: window.windowId, bounds: { width: bounds.width + delta.width, height: bounds.height + delta.height } });
    for (let attempt = 0; attempt < 40; attempt++) {
      const inner = await this.innerSize();
      if (inner.width === target.width && inner.height === target.height) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  attach(client: CdpChannel): void {
    if (this.closing) return client.close();
    const upstream = new WebSocket(this.browserUrl, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
    const entry = { client, upstream };
    this.clients.add(entry);
    const queued: string[] = [];
    client.onMessage((message) => {
      const guarded = guardClientMessage(message);
      if (guarded.reply !== undefined) return client.send(guarded.reply);
      if (upstream.readyState === WebSocket.OPEN) upstream.send(guarded.forward);
      else queued.push(guarded.forward);
    });
    upstream.on('open', () => {
      for (const message of queued.splice(0)) upstream.send(message);
    });
    upstream.on('message', (data: Buffer) => client.send(data.toString('utf8')));
    const end = () => {
      this.clients.delete(entry);
      upstream.close();
      client.close();
    };
    upstream.on('close', end);
    upstream.on('error', end);
    client.onClose(end);
  }

  async screenshot(): Promise<Screenshot> {
    const target = this.pages[this.pages.length - 1];
    if (!target) throw new NoOpenPageError();
    const sessionId = await this.sessionOf(target);
    const shot = await this.controller.send('Page.captureScreenshot', { format: 'png', clip: { x: 0, y: 0, width: this.viewport.width, height: this.viewport.height, scale: 1 } }, sessionId);
    const png = Buffer.from(String(shot.data), 'base64');
    return { png, ...pngSize(png) };
  }

  onExit(listener: () => void): void {
    this.exitListeners.push(listener);
  }

  async close(): Promise<void> {
    if (this.closing) return this.exited;
    this.closing = true;
    for (const { client, upstream } of this.clients) {
      upstream.close();
      client.close();
    }
    this.clients.clear();
    this.controller.close();
    // Held again until it is gone, so awaiting the close keeps the process alive meanwhile.
    this.child.ref();
    if (this.child.pid !== undefined)
      try {
        process.kill(-this.child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    await this.exited;
    await rm(this.profile, { recursive: true, force: true, maxRetries: 3 });
  }

  private async sessionOf(targetId: string): Promise<string> {
    const known = this.pageSessions.get(targetId);
    if (known) return known;
    const attached = await this.controller.send('Target.attachToTarget', { targetId, flatten: true });
    const sessionId = String(attached.sessionId);
    this.pageSessions.set(targetId, sessionId);
    return sessionId;
  }
}
