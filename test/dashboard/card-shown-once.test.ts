/**
 * A new card's full details are kept encrypted and shown once, on the dashboard's card page
 * (DECISIONS.md, "Operating a live service"); the API, events and snapshots never hold them.
 */
import { describe, expect, it } from 'vitest';
import { closeAfter } from '../support/close-after.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/index.js';
import { isLuhnValid } from '../../src/core/wallet/card-number.js';

const BASE = 'http://dashboard.test';
const keep = closeAfter<Runtime>();

async function world(options: RuntimeOptions = {}) {
  const runtime = keep(await createRuntime({ seed: 11, ...options }));
  const created = await runtime.createAgent({ name: 'alice', display_name: 'Alice Agent', balances: { usd: '100' } });
  const alice = runtime.agent(created.api_key);
  const card = await alice.wallet.createCard({ limit: '50.00', currency: 'usd', label: 'travel' });
  return { runtime, alice, card };
}

const page = (runtime: Runtime, path: string, init: RequestInit = {}) => runtime.fetch(new Request(`${BASE}${path}`, init));

describe('card details shown once', () => {
  it('shows the full number (test range, Luhn-valid), CVV and billing address on the first visit, then only last4', async () => {
    const { runtime, card } = await world();
    const first = await page(runtime, `/_dashboard/agents/alice/cards/${card.card_id}`);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    const html = await first.text();
    const number = /<code class="card-number">([\d ]+)<\/code>/.exec(html)?.[1]?.replaceAll(' ', '');
    expect(number).toMatch(/^424242\d{10}$/);
    expect(isLuhnValid(number!)).toBe(true);
    expect(number!.endsWith(card.last4)).toBe(true);
    expect(html).toMatch(/<code class="card-cvv">\d{3}<\/code>/);
    expect(html).toContain('Alice Agent');
    expect(html).toContain('1 Test Card Way');

    const second = await (await page(runtime, `/_dashboard/agents/alice/cards/${card.card_id}`)).text();
    expect(second).not.toContain(number!);
    expect(second).not.toContain('card-cvv');
    expect(second).toContain(`•••• •••• •••• ${card.last4}`);
    expect(second).toContain('were shown once');
  });

  it('never puts them in an API answer, an event or a snapshot (the snapshot carries them sealed)', async () => {
    const { runtime, alice, card } = await world();
    const answers = JSON.stringify([card, await alice.wallet.getCard(card.card_id), await alice.wallet.listCards({})]);
    const events = JSON.stringify(await runtime.sim.events(0, 1000));
    const snapshot = JSON.stringify(await runtime.sim.snapshot());
    expect(snapshot).toMatch(/"v1\.[A-Za-z0-9_-]{40,}"/);
    const html = await (await page(runtime, `/_dashboard/agents/alice/cards/${card.card_id}`)).text();
    const number = /<code class="card-number">([\d ]+)<\/code>/.exec(html)![1]!.replaceAll(' ', '');
    const cvv = /<code class="card-cvv">(\d{3})<\/code>/.exec(html)![1]!;
    for (const text of [answers, events, snapshot]) {
      expect(text).not.toContain(number);
      expect(text).not.toMatch(new RegExp(`"cvv":"${cvv}"`));
    }
    expect(answers).not.toMatch(/"(number|cvv|billing_address)"/);
  });

  it("does not spend the one showing on a HEAD, nor on another agent's card or an unknown one", async () => {
    const { runtime, card } = await world();
    await runtime.createAgent({ name: 'bob' });
    expect((await page(runtime, `/_dashboard/agents/alice/cards/${card.card_id}`, { method: 'HEAD' })).status).toBe(200);
    expect((await page(runtime, `/_dashboard/agents/bob/cards/${card.card_id}`)).status).toBe(404);
    expect((await page(runtime, '/_dashboard/agents/alice/cards/card_unknown')).status).toBe(404);
    expect(await (await page(runtime, `/_dashboard/agents/alice/cards/${card.card_id}`)).text()).toContain('card-cvv');
  });

  it('links each card from the wallet tab', async () => {
    const { runtime, card } = await world();
    const wallet = await (await page(runtime, '/_dashboard/agents/alice/wallet')).text();
    expect(wallet).toContain(`href="/_dashboard/agents/alice/cards/${card.card_id}"`);
  });

  it('opens what a restart of the same world sealed (the key from configuration)', async () => {
    const key = Buffer.alloc(32, 5).toString('base64');
    const { runtime, card } = await world({ mode: 'live', adminToken: 't', cardVaultKey: key });
    const snapshot = await runtime.sim.snapshot();
    const restarted = keep(await createRuntime({ mode: 'live', adminToken: 't', cardVaultKey: key }));
    await restarted.sim.restore(snapshot);
    const shown = await restarted.revealCardOnce(card.card_id);
    expect(shown?.number).toMatch(/^424242/);
    expect(await restarted.revealCardOnce(card.card_id)).toBeNull();
  });
});
