/**
 * A walk through the hosted invoice page in a real browser: Chromium, driven over the DevTools
 * protocol on a pipe (`--remote-debugging-pipe`), so no browser-automation package is needed.
 * Skipped, with a message, where no Chromium is installed (`apt-get install chromium`, or set
 * CHROMIUM_PATH).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, serve, type RunningServer, type Runtime } from '../../../src/index.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasBrowser = existsSync(CHROMIUM);
if (!hasBrowser) console.warn(`pay-page browser walk skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

/** A minimal DevTools-protocol client over Chromium's pipe: NUL-separated JSON messages. */
class Browser {
  private nextId = 1;
  private buffer = '';
  private readonly waiting = new Map<number, { resolve: (value: any) => void; reject: (error: Error) => void }>();
  private readonly listeners: Array<(message: any) => void> = [];
  private readonly profile = mkdtempSync(path.join(tmpdir(), 'pay-page-'));
  private readonly process: ChildProcess;

  constructor() {
    this.process = spawn(CHROMIUM, ['--headless=new', '--remote-debugging-pipe', '--no-sandbox', '--disable-gpu', '--no-first-run', '--no-default-browser-check', `--user-data-dir=${this.profile}`, 'about:blank'], {
      stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'],
    });
    (this.process.stdio[4] as Readable).on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString('utf8');
      let end: number;
      while ((end = this.buffer.indexOf('\0')) >= 0) {
        const message = JSON.parse(this.buffer.slice(0, end));
        this.buffer = this.buffer.slice(end + 1);
        const pending = message.id === undefined ? undefined : this.waiting.get(message.id);
        if (pending) {
          this.waiting.delete(message.id);
          if (message.error) pending.reject(new Error(message.error.message));
          else pending.resolve(message.result);
        } else for (const listener of [...this.listeners]) listener(message);
      }
    });
  }

  send(method: string, params: object = {}, sessionId?: string): Promise<any> {
    const id = this.nextId++;
    const message = JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) });
    (this.process.stdio[3] as Writable).write(`${message}\0`);
    return new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject }));
  }

  /** Resolves with the next event of this name (optionally of one session). */
  next(method: string, sessionId?: string): Promise<any> {
    return new Promise((resolve) => {
      const listener = (message: any) => {
        if (message.method !== method || (sessionId && message.sessionId !== sessionId)) return;
        this.listeners.splice(this.listeners.indexOf(listener), 1);
        resolve(message.params);
      };
      this.listeners.push(listener);
    });
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.process.once('exit', resolve));
    this.process.kill();
    await exited;
    // Chromium's helper processes can still be writing the profile for a moment after the
    // browser exits (ENOTEMPTY): rmSync retries those errors.
    rmSync(this.profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

/** One tab. */
class Tab {
  constructor(
    private readonly browser: Browser,
    private readonly session: string,
  ) {}

  static async open(browser: Browser): Promise<Tab> {
    const { targetId } = await browser.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await browser.send('Target.attachToTarget', { targetId, flatten: true });
    await browser.send('Page.enable', {}, sessionId);
    await browser.send('Runtime.enable', {}, sessionId);
    return new Tab(browser, sessionId);
  }

  async goto(url: string): Promise<void> {
    const loaded = this.browser.next('Page.loadEventFired', this.session);
    await this.browser.send('Page.navigate', { url }, this.session);
    await loaded;
  }

  async text(selector: string): Promise<string | null> {
    const { result } = await this.browser.send('Runtime.evaluate', { expression: `document.querySelector(${JSON.stringify(selector)})?.textContent ?? null`, returnByValue: true }, this.session);
    return result.value;
  }

  async evaluate<T>(expression: string): Promise<T> {
    const { result } = await this.browser.send('Runtime.evaluate', { expression, returnByValue: true }, this.session);
    return result.value as T;
  }

  /** Clicks the middle of an element with the mouse, as a person would, and waits for the page that follows. */
  async clickAndWait(selector: string): Promise<void> {
    const box = await this.evaluate<{ x: number; y: number } | null>(
      `(() => { const r = document.querySelector(${JSON.stringify(selector)})?.getBoundingClientRect(); return r ? { x: r.x + r.width / 2, y: r.y + r.height / 2 } : null; })()`,
    );
    if (!box) throw new Error(`no element ${selector}`);
    const loaded = this.browser.next('Page.loadEventFired', this.session);
    for (const type of ['mousePressed', 'mouseReleased']) {
      await this.browser.send('Input.dispatchMouseEvent', { type, x: box.x, y: box.y, button: 'left', clickCount: 1 }, this.session);
    }
    await loaded;
  }
}

describe.skipIf(!hasBrowser)('hosted invoice page in a real browser (Chromium)', () => {
  let runtime: Runtime;
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    runtime = await createRuntime({ seed: 5 });
    server = await serve(runtime, { port: 0 });
    browser = new Browser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows the invoice, pays it by card with a mouse click, then shows it paid and credits the creator', async () => {
    const sim = runtime.simClient();
    const created = await sim.createAgent({ name: 'alice', display_name: 'Alice' });
    const alice = runtime.agent(created.api_key);
    const invoice = await alice.wallet.createInvoice({ to: 'carol@example.com', amount: '99.95', currency: 'usd', description: '<b>Annual</b> plan', due_date: '2026-06-30' });

    const tab = await Tab.open(browser);
    await tab.goto(invoice.payment_url);
    expect(await tab.text('h1')).toBe('Invoice from Alice');
    expect(await tab.text('#amount')).toBe('99.95 USD');
    expect(await tab.text('#description')).toBe('<b>Annual</b> plan');
    expect(await tab.evaluate<number>('document.querySelectorAll("b").length')).toBe(0);
    expect(await tab.text('#due-date')).toBe('2026-06-30');
    expect(await tab.text('#status')).toBe('Open');
    expect(await tab.evaluate<string[]>('[...document.querySelectorAll("form button")].map((b) => b.textContent)')).toEqual(['Pay by card', 'Pay by bank transfer', 'Pay with crypto']);

    await tab.clickAndWait('button[value="card"]');
    expect(await tab.evaluate<string>('location.href')).toBe(invoice.payment_url);
    expect(await tab.text('#status')).toBe('Paid');
    expect(await tab.text('#paid-confirmation')).toContain('Paid on');
    expect(await tab.evaluate<number>('document.forms.length')).toBe(0);
    expect((await alice.wallet.getInvoice(invoice.invoice_id)).status).toBe('paid');
    expect((await alice.wallet.getBalance()).fiat.usd).toBe('99.95');

    await tab.goto(invoice.payment_url);
    expect(await tab.text('#status')).toBe('Paid');
    expect((await alice.wallet.getBalance()).fiat.usd).toBe('99.95');
  });
});
