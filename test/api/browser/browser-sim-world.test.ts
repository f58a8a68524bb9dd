/**
 * What the simulated browser does for a simulated world: an agent pays an invoice through its
 * hosted pay page, sessions are limited per agent (429 with Retry-After), and a restored world
 * shows its old sessions terminated with reason "restart". The same over a PostgreSQL world (one
 * process): sessions have an owner there and the limit is counted in the database; a restored
 * world's sessions end "lost" (another process could still run sessions of that world).
 */
import puppeteer from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentClient, Runtime } from '../../../src/index.js';
import { freshDatabase, postgresSkipReason } from '../../support/postgres.js';
import { servedRuntime } from './browser-fixtures.js';

const WORLDS = [{ store: 'memory', restartReason: 'restart' }, ...(postgresSkipReason() === null ? [{ store: 'PostgreSQL', restartReason: 'lost' }] : [])] as const;

describe.each(WORLDS)('browser sessions in a simulated world ($store store)', ({ store, restartReason }) => {
  let runtime: Runtime;
  let close: () => Promise<void>;
  let baseUrl: string;
  let carol: AgentClient;
  let carolKey: string;
  let dave: AgentClient;

  beforeAll(async () => {
    const database = store === 'PostgreSQL' ? { database: await freshDatabase() } : {};
    const served = await servedRuntime({ seed: 12, browser: { provider: 'simulated', maxSessionsPerAgent: 1 }, ...database });
    runtime = served.runtime;
    close = served.close;
    baseUrl = served.server.url;
    carolKey = (await runtime.createAgent({ name: 'carol', display_name: 'Carol' })).api_key;
    carol = runtime.agent(carolKey);
    dave = runtime.agent((await runtime.createAgent({ name: 'dave' })).api_key);
  });
  afterAll(async () => close?.());

  it('draws the same page into the same PNG bytes in two sessions (a deterministic rendering)', async () => {
    const invoice = await carol.wallet.createInvoice({ to: 'dave@agents.test', amount: '1.00', currency: 'usd' });
    const first = await carol.browser.createSession({ url: invoice.payment_url, viewport: { width: 640, height: 400 } });
    const second = await dave.browser.createSession({ url: invoice.payment_url, viewport: { width: 640, height: 400 } });
    const [one, two] = [await carol.browser.screenshot(first.session_id), await dave.browser.screenshot(second.session_id)];
    expect(one).toEqual(two);
    expect({ width: one.width, height: one.height }).toEqual({ width: 640, height: 400 });
    const png = Buffer.from(one.data, 'base64');
    const { inflateSync } = await import('node:zlib');
    const idat = png.indexOf('IDAT');
    const pixels = inflateSync(png.subarray(idat + 4, idat + 4 + png.readUInt32BE(idat - 4)));
    expect(pixels.some((byte, index) => index % (640 * 3 + 1) !== 0 && byte < 128)).toBe(true);
    await carol.browser.deleteSession(first.session_id);
    await dave.browser.deleteSession(second.session_id);
  });

  it('lets an agent pay an invoice by clicking through its payment_url in a session', async () => {
    const invoice = await carol.wallet.createInvoice({ to: 'dave@agents.test', amount: '42.50', currency: 'usd', description: 'Consulting' });
    const session = await dave.browser.createSession({ url: invoice.payment_url });
    const browser = await puppeteer.connect({ browserWSEndpoint: session.ws_endpoint, defaultViewport: null });
    const page = (await browser.pages()).find((candidate) => candidate.url() === invoice.payment_url)!;
    expect(await page.$eval('#amount', (element) => element.textContent)).toBe('42.50 USD');
    expect(await page.$eval('#status', (element) => element.textContent)).toBe('Open');
    await Promise.all([page.waitForNavigation(), page.click('button[value="card"]')]);
    expect(page.url()).toBe(invoice.payment_url);
    expect(await page.$eval('#status', (element) => element.textContent)).toBe('Paid');
    expect(await page.$eval('#paid-confirmation', (element) => element.textContent)).toContain('Paid on');
    expect((await carol.wallet.getInvoice(invoice.invoice_id)).status).toBe('paid');
    expect((await carol.wallet.getBalance()).fiat.usd).toBe('42.50');
    await browser.close();
    expect(await dave.browser.getSession(session.session_id)).toMatchObject({ status: 'terminated', terminated_reason: 'closed' });
  });

  it('answers a screenshot of a session whose pages a client closed with 409 conflict, never 500', async () => {
    const session = await carol.browser.createSession({});
    const client = await puppeteer.connect({ browserWSEndpoint: session.ws_endpoint, defaultViewport: null });
    for (const page of await client.pages()) await page.close();
    await expect(carol.browser.screenshot(session.session_id)).rejects.toMatchObject({ status: 409, code: 'conflict' });
    await client.disconnect();
    await carol.browser.deleteSession(session.session_id);
  });

  it('refuses a session past the per-agent limit with 429 rate_limited and Retry-After', async () => {
    const first = await carol.browser.createSession({});
    const request = () =>
      fetch(`${baseUrl}/v1/compute/browser/sessions`, { method: 'POST', headers: { authorization: `Bearer ${carolKey}`, 'content-type': 'application/json', 'idempotency-key': 'over-limit' }, body: '{}' });
    const response = await request();
    expect(response.status).toBe(429);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    expect(Number(response.headers.get('retry-after'))).toBe(3600);
    // The answer is stored under its key: a retry replays it, Retry-After included.
    const replay = await request();
    expect([replay.status, replay.headers.get('idempotent-replayed'), Number(replay.headers.get('retry-after'))]).toEqual([429, 'true', 3600]);
    await carol.browser.deleteSession(first.session_id);
    const again = await carol.browser.createSession({});
    expect(again.status).toBe('open');
  });

  it('shows the sessions of a restored world terminated (reason "restart", or "lost" on PostgreSQL)', async () => {
    const open = (await carol.browser.listSessions()).sessions.find((session) => session.status === 'open')!;
    const sim = runtime.simClient();
    // A CDP message is activity: it moves the expiry without any API call on the session.
    const client = await puppeteer.connect({ browserWSEndpoint: open.ws_endpoint, defaultViewport: null });
    const { now } = await sim.advanceClock({ seconds: 30 * 60 });
    await client.version();
    const listed = (await carol.browser.listSessions()).sessions.find((session) => session.session_id === open.session_id)!;
    expect(listed.last_activity_at).toBe(now);
    expect(listed.expires_at).toBe(new Date(Date.parse(now) + 3600_000).toISOString());
    await client.disconnect();
    const snapshot = await sim.snapshot();
    await sim.restore(snapshot);
    await expect.poll(async () => (await carol.browser.getSession(open.session_id)).terminated_reason).toBe(restartReason);
    const after = await carol.browser.getSession(open.session_id);
    expect(after.status).toBe('terminated');
    const fresh = await carol.browser.createSession({});
    expect(fresh.status).toBe('open');
  });
});
