/**
 * Browser sessions end to end, for each provider: a session on a local page, driven through its
 * ws_endpoint by puppeteer-core and by playwright-core, screenshots, refused upgrades, delete,
 * idle termination on the service clock and isolation between agents. Chromium runs are skipped,
 * with the reason, where /usr/bin/chromium is missing. Two Chromium launches in all.
 */
import puppeteer from 'puppeteer-core';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentClient, Runtime } from '../../../src/index.js';
import { CHROMIUM, HAS_CHROMIUM, pngDimensions, servedRuntime, startSite, upgradeStatus } from './browser-fixtures.js';

if (!HAS_CHROMIUM) console.warn(`browser-session Chromium tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

const PROVIDERS = [
  { provider: 'simulated' as const, skip: false },
  { provider: 'chromium' as const, skip: !HAS_CHROMIUM },
];

describe.each(PROVIDERS)('browser sessions on the $provider browser', ({ provider, skip }) => {
  let runtime: Runtime;
  let close: () => Promise<void>;
  let site: { url: string; close(): Promise<void> };
  let alice: AgentClient;
  let bob: AgentClient;

  beforeAll(async () => {
    if (skip) return;
    site = await startSite();
    const served = await servedRuntime({ seed: 11, browser: { provider, ...(provider === 'chromium' ? { chromiumPath: CHROMIUM } : {}) } });
    runtime = served.runtime;
    close = served.close;
    alice = runtime.agent((await runtime.createAgent({ name: 'alice' })).api_key);
    bob = runtime.agent((await runtime.createAgent({ name: 'bob' })).api_key);
  });
  afterAll(async () => {
    await close?.();
    await site?.close();
  });

  it.skipIf(skip)('is driven by puppeteer-core: click and read the DOM, screenshot at the viewport, refused upgrades, isolation, delete', async () => {
    const session = await alice.browser.createSession({ url: site.url, viewport: { width: 800, height: 600 } });
    expect(session).toMatchObject({ status: 'open', url: site.url, viewport: { width: 800, height: 600 }, terminated_reason: null });
    expect(session.session_id).toMatch(/^bs_/);
    expect(session.ws_endpoint).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/v1\/compute\/browser\/sessions\/bs_\w+\/devtools\/\w+$/);
    expect(Date.parse(session.expires_at) - Date.parse(session.created_at)).toBe(3600_000);

    const browser = await puppeteer.connect({ browserWSEndpoint: session.ws_endpoint, defaultViewport: null });
    const pages = await browser.pages();
    const page = pages.find((candidate) => candidate.url() === site.url) ?? (await browser.newPage());
    if (page.url() !== site.url) await page.goto(site.url);
    expect(await page.$eval('#heading', (element) => element.textContent)).toBe('Hello');
    await page.type('#name', 'Ada');
    await page.click('#change');
    expect(await page.$eval('#heading', (element) => element.textContent)).toBe('Clicked Ada');
    expect(await page.evaluate(() => (globalThis as unknown as { document: { title: string } }).document.title)).toBe('Test page');
    expect(await page.content()).toContain('<h1 id="heading">Clicked Ada</h1>');

    const shot = await alice.browser.screenshot(session.session_id);
    expect({ width: shot.width, height: shot.height }).toEqual({ width: 800, height: 600 });
    expect(pngDimensions(shot.data)).toEqual({ width: 800, height: 600 });

    const [base, secret] = [session.ws_endpoint.slice(0, session.ws_endpoint.lastIndexOf('/')), session.ws_endpoint.slice(session.ws_endpoint.lastIndexOf('/') + 1)];
    expect(await upgradeStatus(`${base}/${secret.replace(/.$/, (last) => (last === 'a' ? 'b' : 'a'))}`)).toBe(401);
    expect(await upgradeStatus(base)).toBe(401);
    expect(await upgradeStatus(session.ws_endpoint.replace(session.session_id, 'bs_unknown'))).toBe(404);

    await expect(bob.browser.getSession(session.session_id)).rejects.toMatchObject({ status: 404, code: 'not_found' });
    await expect(bob.browser.screenshot(session.session_id)).rejects.toMatchObject({ status: 404 });
    await expect(bob.browser.deleteSession(session.session_id)).rejects.toMatchObject({ status: 404 });
    expect((await bob.browser.listSessions()).sessions).toEqual([]);
    expect((await alice.browser.listSessions()).sessions.map((listed) => listed.session_id)).toContain(session.session_id);

    const disconnected = new Promise((resolve) => browser.once('disconnected', resolve));
    await alice.browser.deleteSession(session.session_id);
    await disconnected;
    expect(await alice.browser.getSession(session.session_id)).toMatchObject({ status: 'terminated', terminated_reason: 'closed' });
    expect(await upgradeStatus(session.ws_endpoint)).toBe(404);
    await expect(alice.browser.screenshot(session.session_id)).rejects.toMatchObject({ status: 404, code: 'not_found' });
    const events = await runtime.simClient().listEvents({ after: 0 });
    const terminated = events.events.filter((event) => event.type === 'browser.session.terminated');
    expect(terminated.at(-1)).toMatchObject({ agent_id: expect.stringMatching(/^agt_/), data: { session_id: session.session_id, status: 'terminated', terminated_reason: 'closed' } });
  });

  it.skipIf(skip)('is driven by playwright-core over connectOverCDP, and ends idle after 60 minutes of service time without activity', async () => {
    const session = await alice.browser.createSession({});
    const browser = await chromium.connectOverCDP(session.ws_endpoint);
    const context = browser.contexts()[0]!;
    const page = await context.newPage();
    await page.goto(site.url);
    await page.fill('#name', 'Grace');
    await page.click('#change');
    expect(await page.textContent('#heading')).toBe('Clicked Grace');
    expect(await page.locator('p').textContent()).toContain('Press the button');
    await browser.close();

    const sim = runtime.simClient();
    await sim.advanceClock({ seconds: 30 * 60 });
    const touched = await alice.browser.getSession(session.session_id);
    expect(touched.status).toBe('open');
    expect(touched.expires_at).toBe(new Date(Date.parse(touched.last_activity_at) + 3600_000).toISOString());
    await sim.advanceClock({ seconds: 59 * 60 });
    expect((await alice.browser.getSession(session.session_id)).status).toBe('open');
    await sim.advanceClock({ seconds: 60 * 60 });
    const ended = await alice.browser.getSession(session.session_id);
    expect(ended).toMatchObject({ status: 'terminated', terminated_reason: 'idle' });
    const events = await sim.listEvents({ after: 0 });
    expect(events.events.filter((event) => event.type === 'browser.session.terminated').at(-1)?.data).toEqual(ended);
    expect(await upgradeStatus(session.ws_endpoint)).toBe(404);
  });
});
