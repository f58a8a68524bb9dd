/**
 * The dashboard over plain HTTP (`runtime.fetch`, the same code the server runs): who may see it,
 * that agent-provided text is shown as text, that every page answers, and the clock, snapshot and
 * event-stream endpoints.
 */
import { describe, expect, it } from 'vitest';
import { closeAfter } from '../support/close-after.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/index.js';
import { dashboardLine } from '../../src/cli/serve-command.js';
import { LOGGED_EVENT_TYPES } from '../../src/core/events/events.schema.js';

const BASE = 'http://dashboard.test';
const keep = closeAfter<Runtime>();

async function world(options: RuntimeOptions = {}): Promise<Runtime> {
  const runtime = keep(await createRuntime({ seed: 7, ...options }));
  return runtime;
}

function get(runtime: Runtime, path: string, headers: Record<string, string> = {}): Promise<Response> {
  return runtime.fetch(new Request(`${BASE}${path}`, { headers, redirect: 'manual' }));
}

describe('dashboard access', () => {
  it('is open in simulation without an admin token', async () => {
    const runtime = await world();
    const answer = await get(runtime, '/_dashboard');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await answer.text()).toContain('<h1>Agents');
  });

  it('with an admin token answers 401 without it, and takes the Bearer header', async () => {
    const runtime = await world({ adminToken: 'sekret-token' });
    const denied = await get(runtime, '/_dashboard');
    expect(denied.status).toBe(401);
    expect(denied.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await get(runtime, '/_dashboard/events', { authorization: 'Bearer wrong-token' })).status).toBe(401);
    expect((await get(runtime, '/_dashboard/assets/dashboard.css')).status).toBe(401);
    const allowed = await get(runtime, '/_dashboard/events', { authorization: 'Bearer sekret-token' });
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain('<h1>Events');
  });

  it('?token= sets an HttpOnly cookie and redirects to the page without the token; the cookie then opens every page', async () => {
    const runtime = await world({ adminToken: 'sekret-token' });
    const login = await get(runtime, '/_dashboard/events?type=sms&token=sekret-token');
    expect(login.status).toBe(303);
    expect(login.headers.get('location')).toBe('/_dashboard/events?type=sms');
    const cookie = login.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toContain('sekret-token');
    const pair = cookie.split(';')[0]!;
    expect((await get(runtime, '/_dashboard/events?type=sms', { cookie: pair })).status).toBe(200);
    expect((await get(runtime, '/_dashboard', { cookie: `other=1; ${pair}` })).status).toBe(200);
    expect((await get(runtime, '/_dashboard', { cookie: `${pair.split('=')[0]}=forged` })).status).toBe(401);
    expect((await get(runtime, '/_dashboard?token=wrong')).status).toBe(401);
  });

  it('is never served in live mode without an admin token (404), and is with one', async () => {
    const live = await world({ mode: 'live' });
    const hidden = await get(live, '/_dashboard');
    expect(hidden.status).toBe(404);
    expect(await hidden.json()).toMatchObject({ error: { code: 'not_found' } });
    expect((await get(live, '/_dashboard/events/stream')).status).toBe(404);
    const guarded = await world({ mode: 'live', adminToken: 'live-token' });
    expect((await get(guarded, '/_dashboard')).status).toBe(401);
    expect((await get(guarded, '/_dashboard', { authorization: 'Bearer live-token' })).status).toBe(200);
  });
});

describe('the serve line', () => {
  it('names the dashboard in simulation, hints at the token when there is one, and is absent in live mode without one', () => {
    expect(dashboardLine({}, 'http://127.0.0.1:8787')).toBe('dashboard:  http://127.0.0.1:8787/_dashboard');
    expect(dashboardLine({ adminToken: 'sekrit' }, 'http://h:1')).toMatch(/^dashboard: {2}http:\/\/h:1\/_dashboard\?token=<admin token> /);
    expect(dashboardLine({ adminToken: 'sekrit' }, 'http://h:1')).not.toContain('sekrit');
    expect(dashboardLine({ mode: 'live' }, 'http://h:1')).toBeNull();
  });
});

describe('dashboard pages', () => {
  const SCRIPT = '<script>alert("owned")</script>';

  /** A world where every field the dashboard shows from agents holds markup. */
  async function hostileWorld() {
    const runtime = await world();
    const alice = await runtime.createAgent({ name: 'alice', display_name: `Alice ${SCRIPT}`, bio: SCRIPT, balances: { usd: '100' } });
    const bob = await runtime.createAgent({ name: 'bob' });
    const client = runtime.agent(alice.api_key);
    await client.memory.create({ content: `remember ${SCRIPT}`, metadata: { note: SCRIPT } });
    await client.email.send({
      to: ['bob@agents.test'],
      subject: `Subject ${SCRIPT}`,
      text: `Body ${SCRIPT}`,
      html: `<p>hi</p>${SCRIPT}`,
      attachments: [{ filename: `${SCRIPT}.txt`, content: Buffer.from('attached bytes').toString('base64'), content_type: 'text/plain' }],
    });
    await client.phone.sendSms({ to: bob.phone_number!, body: `SMS ${SCRIPT}` });
    await client.wallet.send({ to: 'bob', amount: '5', asset: 'usd', memo: SCRIPT });
    await client.wallet.createInvoice({ to: 'bob', amount: '3', currency: 'usd', description: SCRIPT });
    await client.wallet.createCard({ limit: '50', currency: 'usd', label: SCRIPT });
    await client.compute.writeFs({ path: '/home/agent/notes.html', content: Buffer.from(SCRIPT).toString('base64') });
    return { runtime, alice, bob };
  }

  it('shows every agent-provided value as text: no page carries the script as markup', async () => {
    const { runtime } = await hostileWorld();
    const bobThreads = await (await get(runtime, '/_dashboard/agents/bob/mail')).text();
    const thread = /thread=(thr_\w+)/.exec(bobThreads)?.[1];
    expect(thread).toBeDefined();
    const pages = [
      '/_dashboard',
      '/_dashboard/agents/alice',
      '/_dashboard/agents/alice/wallet',
      '/_dashboard/agents/alice/mail',
      `/_dashboard/agents/bob/mail?thread=${thread}`,
      '/_dashboard/agents/alice/phone',
      '/_dashboard/agents/bob/phone',
      '/_dashboard/agents/alice/memory',
      `/_dashboard/agents/alice/memory?q=${encodeURIComponent('remember')}`,
      '/_dashboard/agents/alice/compute?path=/home/agent',
      '/_dashboard/agents/alice/browser',
      '/_dashboard/events',
      `/_dashboard/events?type=${encodeURIComponent(SCRIPT)}&agent=${encodeURIComponent(SCRIPT)}`,
    ];
    for (const path of pages) {
      const answer = await get(runtime, path);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get('content-security-policy'), path).toContain("script-src 'self'");
      const text = await answer.text();
      expect(text, path).not.toContain(SCRIPT);
      expect(text, path).not.toMatch(/<script>alert/);
    }
    const memory = await (await get(runtime, '/_dashboard/agents/alice/memory?q=remember')).text();
    expect(memory).toContain('remember &lt;script&gt;alert(&quot;owned&quot;)&lt;/script&gt;');
    const mail = await (await get(runtime, `/_dashboard/agents/bob/mail?thread=${thread}`)).text();
    expect(mail).toContain('Subject &lt;script&gt;alert(&quot;owned&quot;)&lt;/script&gt;');
    const profile = await (await get(runtime, '/_dashboard/agents/alice')).text();
    expect(profile).toContain('<dd>&lt;script&gt;alert(&quot;owned&quot;)&lt;/script&gt;</dd>');
  });

  it('shows each area through the API: balances, history with status changes, invoices, cards, threads with attachments, SMS, memories, files, runs', async () => {
    const { runtime } = await hostileWorld();
    const wallet = await (await get(runtime, '/_dashboard/agents/alice/wallet')).text();
    expect(wallet).toContain('95.00');
    expect(wallet).toMatch(/status-confirmed/);
    expect(wallet).toContain('/pay/invoices/');
    expect(wallet).toContain('<td data-label="Limit">50.00 usd</td>');

    const bobMail = await (await get(runtime, '/_dashboard/agents/bob/mail')).text();
    const thread = /thread=(thr_\w+)/.exec(bobMail)![1]!;
    expect(bobMail).toContain('1 unread');
    const message = await (await get(runtime, `/_dashboard/agents/bob/mail?thread=${thread}`)).text();
    const attachment = /href="(\/_dashboard\/agents\/bob\/mail\/attachments\/[^"]+)"/.exec(message)![1]!;
    const download = await get(runtime, attachment);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/octet-stream');
    expect(download.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(await download.text()).toBe('attached bytes');
    // Watching is not reading: the dashboard leaves the message unread.
    const summaries = await (await runtime.actAs((await runtime.anonymous().identity.getPublicProfile('bob')).agent_id)).email.list({ folder: 'inbox' });
    expect(summaries.messages[0]!.read).toBe(false);

    const phone = await (await get(runtime, '/_dashboard/agents/alice/phone?part=sms')).text();
    expect(phone).toMatch(/^<section id="sms"/);
    expect(phone).toContain('status-queued');
    const received = await (await get(runtime, '/_dashboard/agents/bob/phone?part=inbound')).text();
    expect(received).toContain('No SMS received.');

    const memory = await (await get(runtime, '/_dashboard/agents/alice/memory?q=remember')).text();
    expect(memory).toMatch(/<td data-label="Score">0\.\d{3}<\/td>/);
    const compute = await (await get(runtime, '/_dashboard/agents/alice/compute?path=/home/agent')).text();
    const file = /href="(\/_dashboard\/agents\/alice\/compute\/file\?path=[^"]+)"/.exec(compute)![1]!.replaceAll('&amp;', '&');
    const fileAnswer = await get(runtime, file);
    expect(fileAnswer.headers.get('content-type')).toBe('application/octet-stream');
    expect(await fileAnswer.text()).toBe(SCRIPT);
  });

  it('answers 404 for an unknown agent, tab, part or page, and 405 for a page with another method', async () => {
    const { runtime } = await hostileWorld();
    expect((await get(runtime, '/_dashboard/agents/nobody')).status).toBe(404);
    expect((await get(runtime, '/_dashboard/agents/alice/nothing')).status).toBe(404);
    expect((await get(runtime, '/_dashboard/agents/alice/phone?part=nothing')).status).toBe(404);
    expect((await get(runtime, '/_dashboard/agents/%E0%A4%A')).status).toBe(404);
    expect((await get(runtime, '/_dashboard/assets/nothing.js')).status).toBe(404);
    expect((await get(runtime, '/_dashboard/clock/advance')).status).toBe(405);
  });

  it('advances the clock from a form (303 back) or htmx (the clock and a refresh trigger), refusing cross-site posts', async () => {
    const runtime = await world();
    const form = (seconds: string, headers: Record<string, string> = {}) =>
      runtime.fetch(
        new Request(`${BASE}/_dashboard/clock/advance`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
          body: new URLSearchParams({ seconds }),
          redirect: 'manual',
        }),
      );
    const before = Date.parse(runtime.sim.clock().now);
    const plain = await form('60', { referer: `${BASE}/_dashboard/events` });
    expect(plain.status).toBe(303);
    expect(plain.headers.get('location')).toBe(`${BASE}/_dashboard/events`);
    expect(Date.parse(runtime.sim.clock().now) - before).toBe(60_000);
    const htmx = await form('3600', { 'hx-request': 'true' });
    expect(htmx.status).toBe(200);
    expect(htmx.headers.get('hx-trigger')).toBe('dashboard-clock');
    expect(await htmx.text()).toContain(runtime.sim.clock().now);
    expect(Date.parse(runtime.sim.clock().now) - before).toBe(3_660_000);
    expect((await form('0')).status).toBe(400);
    expect((await form('60', { origin: 'https://evil.example' })).status).toBe(403);
    expect(Date.parse(runtime.sim.clock().now) - before).toBe(3_660_000);
  });

  it('downloads a snapshot and restores it from the upload form', async () => {
    const runtime = await world();
    await runtime.createAgent({ name: 'alice' });
    const download = await get(runtime, '/_dashboard/snapshot/download');
    expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename="snapshot-/);
    const snapshot = await download.text();
    await runtime.createAgent({ name: 'bob' });
    const body = new FormData();
    body.set('snapshot', new Blob([snapshot], { type: 'application/json' }), 'world.json');
    const restored = await runtime.fetch(new Request(`${BASE}/_dashboard/snapshot/restore`, { method: 'POST', body }));
    expect(restored.status).toBe(200);
    expect(await restored.text()).toContain('Restored world.json');
    expect((await get(runtime, '/_dashboard/agents/bob')).status).toBe(404);
    expect((await get(runtime, '/_dashboard/agents/alice')).status).toBe(200);

    const bad = new FormData();
    bad.set('snapshot', new Blob(['{"not": "a snapshot"}']), 'bad.json');
    const refused = await runtime.fetch(new Request(`${BASE}/_dashboard/snapshot/restore`, { method: 'POST', body: bad }));
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('not an agent-services snapshot');
  });

  it('streams events as SSE: the backlog after `after`, then new ones, filtered by type and agent', async () => {
    const runtime = await world();
    const alice = await runtime.createAgent({ name: 'alice' });
    const bob = await runtime.createAgent({ name: 'bob' });
    const controller = new AbortController();
    const answer = await runtime.fetch(new Request(`${BASE}/_dashboard/events/stream?agent=alice&type=sms.&after=0`, { signal: controller.signal }));
    expect(answer.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = answer.body!.pipeThrough(new TextDecoderStream()).getReader();
    await runtime.agent(bob.api_key).phone.sendSms({ to: '+15005550006', body: 'not alice' });
    await runtime.agent(alice.api_key).phone.sendSms({ to: '+15005550006', body: 'from <alice>' });
    let text = '';
    while (!text.includes('event: world')) text += (await reader.read()).value ?? '';
    const data = JSON.parse(/^data: (.*)$/m.exec(text.slice(text.indexOf('event: world')))![1]!);
    expect(data).toMatchObject({ type: 'sms.status_changed', area: 'sms', agent_id: alice.agent_id });
    expect(data.html).toContain('from &lt;alice&gt;');
    expect(text).not.toContain('not alice');
    controller.abort();
    await reader.cancel().catch(() => undefined);
  });

  it('offers the event catalog in the type filter: every area prefix and every logged type', async () => {
    const runtime = await world();
    const page = await (await get(runtime, '/_dashboard/events')).text();
    const offered = [...page.slice(page.indexOf('<datalist id="event-types">')).matchAll(/<option value="([^"]+)">/g)].map((match) => match[1]);
    expect(offered).toEqual(expect.arrayContaining(['sms.', 'wallet.', 'fault.', 'credential.', 'sms.status_changed', 'wallet.transaction.updated', 'fault.injected']));
    expect(offered).toHaveLength(new Set(offered).size);
    expect(offered.filter((choice) => !choice!.endsWith('.'))).toEqual([...LOGGED_EVENT_TYPES]);
  });

  it("tells a stream's page to reload once the world was replaced by a restore", async () => {
    const runtime = await world();
    const snapshot = await runtime.sim.snapshot();
    const alice = await runtime.createAgent({ name: 'alice' });
    await runtime.agent(alice.api_key).phone.sendSms({ to: '+15005550006', body: 'before the restore' });
    const controller = new AbortController();
    const answer = await runtime.fetch(new Request(`${BASE}/_dashboard/events/stream`, { signal: controller.signal }));
    const reader = answer.body!.pipeThrough(new TextDecoderStream()).getReader();
    await runtime.sim.restore(snapshot);
    await runtime.createAgent({ name: 'bob' });
    let text = '';
    while (!text.includes('event: world')) text += (await reader.read()).value ?? '';
    expect(text).toMatch(/event: reset\n[\s\S]*id: 1\nevent: world/);
    controller.abort();
    await reader.cancel().catch(() => undefined);
  });
});

describe('dashboard policy tab', () => {
  it("shows an agent's policy, today's usage and its refusals, and lists the tab", async () => {
    const runtime = await world();
    const alice = await runtime.createAgent({ name: 'alice', balances: { usd: '100' } });
    await runtime.createAgent({ name: 'bob' });
    const empty = await (await get(runtime, '/_dashboard/agents/alice/policy')).text();
    expect(empty).toContain('No policy');
    expect(empty).toContain('href="/_dashboard/agents/alice/policy"');
    await runtime.simClient().setAgentPolicy('alice', { wallet: { per_transaction: { usd: '10' } } });
    const client = runtime.agent(alice.api_key);
    await client.wallet.send({ to: 'bob', amount: '5', asset: 'usd' });
    await client.wallet.send({ to: 'bob', amount: '50', asset: 'usd' }).catch(() => undefined);
    const page = await (await get(runtime, '/_dashboard/agents/alice/policy')).text();
    expect(page).toContain('&quot;per_transaction&quot;');
    expect(page).toContain('usd 500 (minor units)');
    const refusals = await (await get(runtime, '/_dashboard/agents/alice/policy?part=violations')).text();
    expect(refusals).toMatch(/^<section id="violations"/);
    expect(refusals).toContain('<td data-label="Rule">wallet.per_transaction</td>');
    expect(refusals).toContain('<td data-label="Field">amount</td>');
  });
});
