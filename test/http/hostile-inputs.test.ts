/**
 * Hostile inputs of issue #13, over `runtime.fetch` and a real socket: unpaired surrogates and
 * bytes that are not UTF-8, client-chosen keys such as `__proto__`, validation messages, 415, 405
 * on every route, restores of bad snapshots, and XLSX files whatever their zip entry order.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RAW_TRANSPORTS, bearer, expectErrorResponse, jsonInit, openRawWorld, type World } from '../support/transports.js';
import { buildXlsx } from '../support/xlsx-builder.js';

const LONE_HIGH = '\uD83D';
const LONE_LOW = '\uDE00';

describe.each(RAW_TRANSPORTS)('hostile inputs (%s)', (kind) => {
  const worlds: World[] = [];
  afterEach(async () => {
    for (const w of worlds.splice(0)) await w.close();
  });
  const open = async () => {
    const w = await openRawWorld(kind);
    worlds.push(w);
    return w;
  };

  describe('text is Unicode', () => {
    it.each([
      ['memory content', () => ['/v1/memory', 'POST', { content: `walrus ${LONE_HIGH} budget` }], 'content'],
      ['a memory metadata value', () => ['/v1/memory', 'POST', { content: 'walrus', metadata: { k: `x${LONE_LOW}` } }], 'metadata.k'],
      ['a memory metadata key', () => ['/v1/memory', 'POST', { content: 'walrus', metadata: { [`k${LONE_HIGH}`]: 'x' } }], `metadata.k${LONE_HIGH}`],
      ['a display name', () => ['/v1/agent', 'PATCH', { display_name: `Alice ${LONE_LOW}` }], 'display_name'],
      ['an email subject', () => ['/v1/email/send', 'POST', { to: ['bob@agents.test'], subject: `hi ${LONE_HIGH}`, text: 'x' }], 'subject'],
    ] as const)('refuses an unpaired surrogate in %s with 400 invalid_request and stores nothing', async (_what, request, param) => {
      const w = await open();
      const alice = await w.newAgent('alice', { display_name: 'Alice' });
      await w.newAgent('bob');
      const [path, method, body] = request() as [string, string, unknown];
      const response = await w.raw(path, jsonInit(method, body, bearer(alice.api_key)));
      const answer = await expectErrorResponse(response, 400, 'invalid_request');
      // The param names where the bad text is; the message never echoes it.
      if (!param.includes(LONE_HIGH)) expect(answer.error.param).toBe(param);
      expect(answer.error.message).toContain('unpaired UTF-16 surrogate');
      expect((await alice.client.memory.search({ query: 'walrus' })).memories).toEqual([]);
      expect((await alice.client.identity.getProfile()).display_name).toBe('Alice');
      expect((await alice.client.email.list({ folder: 'sent' })).messages).toEqual([]);
    });

    it('refuses a body that is not UTF-8 with 400 invalid_request and stores nothing', async () => {
      const w = await open();
      const alice = await w.newAgent('alice');
      const bytes = Buffer.concat([Buffer.from('{"content":"walrus '), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
      const response = await w.raw('/v1/memory', { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(alice.api_key) }, body: bytes });
      await expectErrorResponse(response, 400, 'invalid_request');
      expect((await alice.client.memory.search({ query: 'walrus' })).memories).toEqual([]);
    });

    it('takes well-formed text outside the BMP (paired surrogates)', async () => {
      const w = await open();
      const alice = await w.newAgent('alice');
      const response = await w.raw('/v1/memory', jsonInit('POST', { content: 'walrus 😀 budget' }, bearer(alice.api_key)));
      expect(response.status).toBe(201);
    });
  });

  describe('client-chosen keys are data', () => {
    it('stores __proto__, constructor and prototype as metadata keys and matches them as plain data', async () => {
      const w = await open();
      const alice = await w.newAgent('alice');
      const metadata = JSON.parse('{"__proto__":"a","constructor":"b","prototype":"c"}') as Record<string, string>;
      const created = await w.raw('/v1/memory', jsonInit('POST', JSON.stringify({ content: 'walrus ferris wheel', metadata }), bearer(alice.api_key)));
      expect(created.status).toBe(201);
      await alice.client.memory.create({ content: 'walrus without keys' });
      const search = async (filter: string) => {
        const response = await w.raw('/v1/memory/search', jsonInit('POST', `{"query":"walrus","metadata_filter":${filter}}`, bearer(alice.api_key)));
        expect(response.status).toBe(200);
        return ((await response.json()) as { memories: Array<{ content: string; metadata: Record<string, string> }> }).memories;
      };
      const hits = await search('{"__proto__":"a"}');
      expect(hits.map((hit) => hit.content)).toEqual(['walrus ferris wheel']);
      expect(Object.keys(hits[0]!.metadata).sort()).toEqual(['__proto__', 'constructor', 'prototype']);
      expect(hits[0]!.metadata).toEqual(metadata);
      expect((await search('{"constructor":"b","prototype":"c"}')).map((hit) => hit.content)).toEqual(['walrus ferris wheel']);
      // A filter on a key no memory has (with that value) matches nothing, never everything.
      expect(await search('{"__proto__":"zzz"}')).toEqual([]);
      expect(await search('{"toString":"x"}')).toEqual([]);
      expect(await search('{"hasOwnProperty":"x"}')).toEqual([]);
    });
  });

  describe('validation messages', () => {
    it('names what was expected and what came', async () => {
      const w = await open();
      const alice = await w.newAgent('alice');
      const limit = await expectErrorResponse(await w.raw('/v1/wallet/transactions?limit=abc', { headers: bearer(alice.api_key) }), 400, 'invalid_request', 'limit');
      expect(limit.error.message).toBe('limit: expected an integer from 1 to 100, got "abc"');
      const content = await expectErrorResponse(await w.raw('/v1/memory', jsonInit('POST', { content: 42 }, bearer(alice.api_key))), 400, 'invalid_request', 'content');
      expect(content.error.message).toBe('content: expected a string, got 42');
      const to = await expectErrorResponse(await w.raw('/v1/email/send', jsonInit('POST', { to: 'bob@agents.test', subject: 's', text: 't' }, bearer(alice.api_key))), 400, 'invalid_request', 'to');
      expect(to.error.message).toBe('to: expected an array, got "bob@agents.test"');
      const asset = await expectErrorResponse(await w.raw('/v1/wallet/send', jsonInit('POST', { to: 'bob', amount: '1', asset: 'doge' }, bearer(alice.api_key))), 400, 'invalid_request', 'asset');
      expect(asset.error.message).toMatch(/^asset: expected one of "usd", .*, got "doge"$/);
    });

    it('says "is required" only when nothing came, never for a present value of the wrong type', async () => {
      const w = await open();
      const alice = await w.newAgent('alice');
      for (const content of [null, 0, false, [], {}]) {
        const answer = await expectErrorResponse(await w.raw('/v1/memory', jsonInit('POST', { content }, bearer(alice.api_key))), 400, 'invalid_request', 'content');
        expect(answer.error.message).not.toContain('is required');
        expect(answer.error.message).toContain('got');
      }
      const missing = await expectErrorResponse(await w.raw('/v1/memory', jsonInit('POST', {}, bearer(alice.api_key))), 400, 'invalid_request', 'content');
      expect(missing.error.message).toBe('content: is required');
    });
  });

  it('answers a JSON body without a JSON content type with 415 unsupported_media_type', async () => {
    const w = await open();
    const alice = await w.newAgent('alice');
    const response = await w.raw('/v1/memory', { method: 'POST', headers: { 'content-type': 'text/plain', ...bearer(alice.api_key) }, body: '{"content":"walrus"}' });
    await expectErrorResponse(response, 415, 'unsupported_media_type');
    expect((await alice.client.memory.search({ query: 'walrus' })).memories).toEqual([]);
  });

  it('answers every known path with a method it does not take with 405 and the Allow it takes', async () => {
    const w = await open();
    // A concrete path takes the methods of every route whose template it fits: a literal route
    // and a parameter route can share one (`POST /v1/memory/search`, `DELETE /v1/memory/{id}`).
    const routes = w.runtime.routes().map((route) => ({ method: route.method, pattern: new RegExp(`^${route.path.replace(/\{\w+\}/g, '[^/]+')}$`) }));
    const byPath = new Map<string, Set<string>>();
    for (const route of w.runtime.routes()) {
      const path = route.path.replace(/\{\w+\}/g, 'x1');
      byPath.set(path, new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method)));
    }
    expect(byPath.size).toBeGreaterThan(40);
    for (const [path, methods] of byPath) {
      const allow = [...methods].flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method]));
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        if (methods.has(method)) continue;
        const response = await w.raw(path, jsonInit(method, method === 'GET' ? undefined : {}));
        expect(response.status, `${method} ${path}`).toBe(405);
        expect(new Set(response.headers.get('allow')?.split(', ')), `${method} ${path}`).toEqual(new Set(allow));
        await expectErrorResponse(response, 405, 'method_not_allowed');
      }
    }
  });

  describe('POST /_sim/restore', () => {
    const breakages: Array<[string, (collections: Record<string, any>) => void, RegExp]> = [
      ['a field of the wrong type', (c) => (c.agents.rows[1][3].name = 5), /^store\.collections\.agents\.rows\.1\.3\.name$/],
      ['a record that is not an object', (c) => (c.wallets.rows[0][3] = 'rich'), /^store\.collections\.wallets\.rows\.0\.3$/],
      ['a duplicate id', (c) => c.agents.rows.push([c.agents.rows[0][0], '', c.agents.nextPosition - 1, c.agents.rows[0][3]]), /^store\.collections\.agents\.rows\.2\.0$/],
      ['a position past nextPosition', (c) => (c.agents.rows[0][2] = c.agents.nextPosition + 5), /^store\.collections\.agents\.rows\.0\.2$/],
      ['a balance that is not a decimal', (c) => (c.wallets.rows[0][3].balances.usd = 'lots'), /^store\.collections\.wallets\.rows\.0\.3\.balances\.usd$/],
    ];

    it.each(breakages)('refuses a snapshot with %s with 400 and the path of the first bad row, world untouched', async (_what, breakIt, param) => {
      const w = await open();
      const alice = await w.newAgent('alice', { balances: { usd: '10' } });
      await w.newAgent('bob');
      const before = await (await w.raw('/_sim/snapshot')).json();
      const bad = structuredClone(before) as { store: { collections: Record<string, any> } };
      breakIt(bad.store.collections);
      const answer = await expectErrorResponse(await w.raw('/_sim/restore', jsonInit('POST', bad)), 400, 'invalid_request');
      expect(answer.error.param).toMatch(param);
      expect(answer.error.message.startsWith(`${answer.error.param}: `)).toBe(true);
      expect(await (await w.raw('/_sim/snapshot')).json()).toEqual(before);
      expect((await alice.client.wallet.getBalance()).fiat.usd).toBe('10.00');
    });

    it('restores a snapshot the runtime took', async () => {
      const w = await open();
      const alice = await w.newAgent('alice', { balances: { usd: '10' } });
      await alice.client.memory.create({ content: 'walrus', metadata: JSON.parse('{"__proto__":"a"}') as Record<string, string> });
      const snapshot = await (await w.raw('/_sim/snapshot')).json();
      expect((await w.raw('/_sim/restore', jsonInit('POST', snapshot))).status).toBe(204);
      expect(await (await w.raw('/_sim/snapshot')).json()).toEqual(snapshot);
    });
  });

  describe('XLSX uploads', () => {
    const upload = (w: World, apiKey: string, bytes: Uint8Array) => {
      const form = new FormData();
      form.append('file', new Blob([bytes], { type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' }), 'budget.xlsx');
      return w.raw('/v1/memory/files', { method: 'POST', headers: bearer(apiKey), body: form });
    };

    it.each(['strings-first', 'strings-last'] as const)('indexes the shared strings of an XLSX (%s) and finds them', async (order) => {
      const w = await open();
      const alice = await w.newAgent('alice');
      const bytes = await buildXlsx([{ name: 'Sheet1', rows: '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1"><v>3</v></c></row>' }], ['walrus ferris wheel budget'], order);
      const response = await upload(w, alice.api_key, bytes);
      expect(response.status).toBe(201);
      expect(await response.json()).toMatchObject({ indexed: true });
      const hits = (await alice.client.memory.search({ query: 'walrus ferris wheel budget' })).memories;
      expect(hits[0]?.content).toContain('walrus ferris wheel budget, 3');
    });

    it('reports an XLSX without any text as indexed: false', async () => {
      const w = await open();
      const alice = await w.newAgent('alice');
      const response = await upload(w, alice.api_key, await buildXlsx([{ name: 'Empty', rows: '' }], [], 'strings-last'));
      expect(response.status).toBe(201);
      expect(await response.json()).toMatchObject({ indexed: false });
      expect((await alice.client.memory.search({ query: 'Empty' })).memories).toEqual([]);
    });
  });
});
