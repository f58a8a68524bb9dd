/**
 * The dashboard in a real browser: Debian's Chromium driven by playwright-core. Every page loads
 * without a console error, also on a phone-sized screen; the event page shows a send as it
 * happens (over SSE); advancing the clock with the header's button updates an SMS's status on
 * screen. Waits are on elements (playwright's own polling), never on durations. Skipped, with the
 * reason, where no Chromium is installed.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, serve, type AgentClient, type RunningServer, type Runtime } from '../../src/index.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
if (!HAS_CHROMIUM) console.warn(`dashboard browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

/** Generous bound for an element to appear; a failure, never a measured duration. */
const APPEAR = { timeout: 20_000 };

describe.skipIf(!HAS_CHROMIUM)('dashboard in Chromium', () => {
  let runtime: Runtime;
  let server: RunningServer;
  let browser: Browser;
  let alice: AgentClient;
  let bobNumber: string;

  beforeAll(async () => {
    runtime = await createRuntime({ seed: 21, browser: { provider: 'simulated' } });
    server = await serve(runtime, { host: '127.0.0.1', port: 0 });
    const created = await runtime.createAgent({ name: 'alice', display_name: 'Alice <script>alert(1)</script>', balances: { usd: '250' } });
    const bob = await runtime.createAgent({ name: 'bob' });
    alice = runtime.agent(created.api_key);
    bobNumber = bob.phone_number!;
    await alice.memory.create({ content: 'Alice prefers green tea <b>strong</b>' });
    await alice.email.send({ to: ['bob@agents.test'], subject: 'Hello <script>x()</script>', text: 'see attached', attachments: [{ filename: 'a.txt', content: 'aGk=', content_type: 'text/plain' }] });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await runtime?.close();
  });

  /** A new page that records console errors and uncaught exceptions. */
  async function openPage(viewport = { width: 1280, height: 800 }): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`${page.url()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`${page.url()}: ${error.message}`));
    return { page, errors };
  }

  // A bound for two dozen page loads on a busy machine, not a measured duration.
  it('loads every page without console errors, on a desktop and on a phone-sized screen', { timeout: 180_000 }, async () => {
    const paths = [
      '/_dashboard',
      '/_dashboard/agents/alice',
      '/_dashboard/agents/alice/wallet',
      '/_dashboard/agents/alice/mail',
      '/_dashboard/agents/bob/mail',
      '/_dashboard/agents/alice/phone',
      '/_dashboard/agents/alice/memory?q=tea',
      '/_dashboard/agents/alice/compute',
      '/_dashboard/agents/alice/browser',
      '/_dashboard/events',
      '/_dashboard/webhooks',
      '/_dashboard/snapshot',
    ];
    const phonePaths = ['/_dashboard', '/_dashboard/agents/alice/wallet', '/_dashboard/agents/bob/mail', '/_dashboard/events'];
    for (const [viewport, visited] of [
      [{ width: 1280, height: 800 }, paths],
      [{ width: 390, height: 844 }, phonePaths],
    ] as const) {
      const { page, errors } = await openPage(viewport);
      for (const path of visited) {
        const answer = await page.goto(`${server.url}${path}`, { waitUntil: 'load' });
        expect(answer?.status(), path).toBe(200);
        // The deferred scripts ran before 'load': htmx is there to drive the live sections.
        expect(await page.evaluate(() => typeof (globalThis as unknown as { htmx?: unknown }).htmx), path).toBe('object');
        const overflow = await page.evaluate(() => {
          const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
          return root.scrollWidth - root.clientWidth;
        });
        expect(overflow, `${path} at ${viewport.width}px scrolls sideways`).toBeLessThanOrEqual(0);
      }
      // The agent-provided markup is text on screen, not an element.
      await page.goto(`${server.url}/_dashboard/agents/alice`);
      expect(await page.locator('h1').first().textContent()).toContain('Alice <script>alert(1)</script>');
      expect(await page.locator('h1 script').count()).toBe(0);
      await page.goto(`${server.url}/_dashboard/agents/alice/memory?q=tea`);
      expect(await page.locator('#search-results').textContent()).toContain('Alice prefers green tea <b>strong</b>');
      expect(errors).toEqual([]);
      await page.context().close();
    }
  });

  it('shows a send in the event stream as it happens', async () => {
    const { page, errors } = await openPage();
    await page.goto(`${server.url}/_dashboard/events?type=wallet.`);
    await page.waitForSelector('.live-state.is-live', APPEAR);
    const rows = page.locator('#event-list .event[data-type="wallet.transaction.created"]', { hasText: 'amount: 12.34' });
    expect(await rows.count()).toBe(0);
    await alice.wallet.send({ to: 'bob', amount: '12.34', asset: 'usd' });
    await rows.first().waitFor(APPEAR);
    // A book transfer is two records: alice's `out` and bob's `in`, each its own event.
    await rows.filter({ has: page.locator('.event-agent', { hasText: 'alice' }) }).waitFor(APPEAR);
    await rows.filter({ has: page.locator('.event-agent', { hasText: 'bob' }) }).waitFor(APPEAR);
    // The filter keeps other areas out.
    await alice.phone.sendSms({ to: '+15005550006', body: 'not a wallet event' });
    expect(await page.locator('#event-list .event[data-type^="sms."]').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('updates an SMS status on screen when the clock is advanced with the header button', async () => {
    const sms = await alice.phone.sendSms({ to: bobNumber, body: 'clock test message' });
    const { page, errors } = await openPage({ width: 390, height: 844 });
    await page.goto(`${server.url}/_dashboard/agents/alice/phone`);
    const row = page.locator('#sms-table tr', { hasText: sms.message_id });
    await row.locator('.status-queued').waitFor(APPEAR);
    const before = await page.locator('#clock-now').textContent();
    await page.click('#clock button[value="10"]');
    await row.locator('.status-delivered').waitFor(APPEAR);
    expect(await page.locator('#clock-now').textContent()).not.toBe(before);
    expect((await alice.phone.getSms(sms.message_id)).status).toBe('delivered');
    // Bob's page shows it as received.
    await page.goto(`${server.url}/_dashboard/agents/bob/phone`);
    expect(await page.locator('#inbound').textContent()).toContain('clock test message');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
