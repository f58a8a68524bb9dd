import { afterEach, describe, expect, it } from 'vitest';
import { SimClock, createRuntime, type AddressResolver, type Runtime, type RuntimeOptions } from '../../../src/index.js';
import type { HttpClient, OutboundRequest } from '../../../src/core/ports/http-client.js';
import { parseServeArgs } from '../../../src/cli/serve-command.js';
import { parseWebhookFlag, runtimeWebhookId } from '../../../src/core/webhooks/webhook-config.js';
import { call } from './webhook-api-helpers.js';

/** A resolver with a fixed table, so no test depends on real DNS. */
const resolver: AddressResolver = {
  resolve: async (hostname) => {
    const table: Record<string, string[]> = { 'hooks.example.com': ['93.184.216.34'], 'inside.example.com': ['93.184.216.34', '10.0.0.7'], 'meta.example.com': ['169.254.169.254'] };
    const found = table[hostname];
    if (!found) throw new Error(`ENOTFOUND ${hostname}`);
    return found;
  },
};

describe('webhook endpoints', () => {
  let runtime: Runtime;
  afterEach(() => runtime?.close());

  async function agent(options: RuntimeOptions = {}): Promise<string> {
    runtime = await createRuntime(options);
    return (await runtime.createAgent({ name: 'alice' })).api_key;
  }

  it.each([
    ['an unknown event type', { url: 'https://hooks.example.com/a', events: ['sms.received', 'wallet.funded'] }, 'events'],
    ['an empty event list', { url: 'https://hooks.example.com/a', events: [] }, 'events'],
    ['an ftp url', { url: 'ftp://hooks.example.com/a' }, 'url'],
    ['a url that is no url', { url: 'hooks' }, 'url'],
    ['a missing url', { events: ['*'] }, 'url'],
    ['an unknown field', { url: 'https://hooks.example.com/a', secret: 'mine' }, 'secret'],
  ])('refuses %s with 400 invalid_request', async (_case, body, param) => {
    const key = await agent();
    const answer = await call(runtime, 'POST', '/v1/webhooks', key, body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'invalid_request', param });
    expect((await call(runtime, 'GET', '/v1/webhooks', key)).body.webhooks).toEqual([]);
  });

  it('registers with a fresh whsec_ secret shown once, lists without secrets, deletes', async () => {
    const key = await agent();
    const first = await call(runtime, 'POST', '/v1/webhooks', key, { url: 'https://hooks.example.com/a', events: ['sms.received', 'invoice.paid', 'sms.received'] });
    const second = await call(runtime, 'POST', '/v1/webhooks', key, { url: 'http://127.0.0.1:9/b' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      webhook_id: expect.stringMatching(/^wh_/),
      url: 'https://hooks.example.com/a',
      events: ['sms.received', 'invoice.paid'],
      secret: expect.stringMatching(/^whsec_[0-9A-Za-z]{32}$/),
      created_at: '2026-01-01T00:00:00.000Z',
    });
    expect(second.body.events).toEqual(['*']);
    expect(second.body.secret).not.toBe(first.body.secret);
    const listed = await call(runtime, 'GET', '/v1/webhooks', key);
    expect(listed.body.webhooks.map((hook: { webhook_id: string }) => hook.webhook_id)).toEqual([second.body.webhook_id, first.body.webhook_id]);
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');
    expect((await call(runtime, 'DELETE', `/v1/webhooks/${first.body.webhook_id}`, key)).status).toBe(204);
    expect((await call(runtime, 'DELETE', `/v1/webhooks/${first.body.webhook_id}`, key)).status).toBe(404);
    expect((await call(runtime, 'GET', '/v1/webhooks', key)).body.webhooks).toHaveLength(1);
  });

  it("answers 404 for another agent's endpoint and never lists it", async () => {
    const key = await agent();
    const bob = await runtime.createAgent({ name: 'bob' });
    const hook = await call(runtime, 'POST', '/v1/webhooks', key, { url: 'https://hooks.example.com/a' });
    const refused = await call(runtime, 'DELETE', `/v1/webhooks/${hook.body.webhook_id}`, bob.api_key);
    expect(refused.status).toBe(404);
    expect(refused.body.error.code).toBe('not_found');
    expect((await call(runtime, 'GET', '/v1/webhooks', bob.api_key)).body.webhooks).toEqual([]);
    expect((await call(runtime, 'GET', '/v1/webhooks', key)).body.webhooks).toHaveLength(1);
  });

  it('caps an agent at 20 endpoints', async () => {
    const key = await agent();
    for (let i = 0; i < 20; i++) expect((await call(runtime, 'POST', '/v1/webhooks', key, { url: `https://hooks.example.com/${i}` })).status).toBe(201);
    const refused = await call(runtime, 'POST', '/v1/webhooks', key, { url: 'https://hooks.example.com/21' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_request');
  });

  describe('in live mode', () => {
    const live: RuntimeOptions = { mode: 'live', adminToken: 'admin', providers: { addressResolver: resolver } };

    it.each(['http://127.0.0.1:8080/hook', 'http://[::1]/hook', 'http://localhost/hook', 'http://10.1.2.3/hook', 'https://inside.example.com/hook', 'https://meta.example.com/latest', 'https://nowhere.example.com/hook'])(
      'refuses %s with 400 invalid_request param url',
      async (url) => {
        const key = await agent(live);
        const answer = await call(runtime, 'POST', '/v1/webhooks', key, { url });
        expect(answer.status).toBe(400);
        expect(answer.body.error).toMatchObject({ code: 'invalid_request', param: 'url' });
      },
    );

    it('accepts a public host', async () => {
      const key = await agent(live);
      expect((await call(runtime, 'POST', '/v1/webhooks', key, { url: 'https://hooks.example.com/hook' })).status).toBe(201);
    });

    it('checks the address again before each attempt: a name re-pointed inside gets no request', async () => {
      const table: Record<string, string[]> = { 'hooks.example.com': ['93.184.216.34'] };
      const sent: OutboundRequest[] = [];
      const http: HttpClient = { request: async (request) => (sent.push(request), { status: 500, headers: {}, body: new Uint8Array() }) };
      const key = await agent({ ...live, providers: { addressResolver: { resolve: async (host) => table[host] ?? [] }, httpClient: http, clock: new SimClock() } });
      expect((await call(runtime, 'POST', '/v1/webhooks', key, { url: 'https://hooks.example.com/hook' })).status).toBe(201);
      const admin = (method: string, path: string, body?: unknown) =>
        runtime.fetch(new Request(`http://in-process.test${path}`, { method, headers: { authorization: 'Bearer admin', 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) }));
      await admin('POST', '/_sim/wallet/fund', { handle: 'alice', asset: 'usd', amount: '1.00' });
      const deliveriesOf = async () => ((await (await admin('GET', '/_sim/webhooks/deliveries')).json()) as { deliveries: Array<Record<string, unknown>> }).deliveries;
      for (;;) {
        if ((await deliveriesOf())[0]?.last_response_status === 500) break;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(sent.map((request) => request.url)).toEqual(['https://hooks.example.com/hook']);
      // The request is pinned to the address that was checked: a lookup between the check and the
      // connection (DNS rebinding) cannot send it elsewhere.
      expect(sent[0]!.address).toBe('93.184.216.34');
      table['hooks.example.com'] = ['127.0.0.1'];
      await admin('POST', '/_sim/clock/advance', { seconds: 60 });
      expect(sent).toHaveLength(1);
      expect((await deliveriesOf())[0]).toMatchObject({ attempts: 2, status: 'pending', last_response_status: null });
    });

    it('accepts private addresses when the runtime allows them', async () => {
      const key = await agent({ ...live, webhookOptions: { allowPrivateUrls: true } });
      expect((await call(runtime, 'POST', '/v1/webhooks', key, { url: 'http://127.0.0.1:8080/hook' })).status).toBe(201);
    });
  });

  it('takes runtime endpoints from --webhook URL=SECRET (repeatable, split at the last =)', () => {
    const { runtime: options } = parseServeArgs(['--webhook', 'http://127.0.0.1:9000/a?x=1=whsec_one', '--webhook', 'https://ops.example.com/h=s2']);
    expect(options.webhooks).toEqual([
      { url: 'http://127.0.0.1:9000/a?x=1', secret: 'whsec_one' },
      { url: 'https://ops.example.com/h', secret: 's2' },
    ]);
    expect(() => parseWebhookFlag('http://example.com/no-secret')).toThrow(RangeError);
    expect(() => parseWebhookFlag('http://example.com/empty=')).toThrow(RangeError);
    expect(runtimeWebhookId('https://ops.example.com/h')).toBe(runtimeWebhookId('https://ops.example.com/h'));
  });

  it('refuses bad runtime endpoints when the runtime is built', async () => {
    await expect(createRuntime({ webhooks: [{ url: 'ftp://x', secret: 's' }] })).rejects.toThrow(RangeError);
    await expect(createRuntime({ webhooks: [{ url: 'https://x.example', secret: '' }] })).rejects.toThrow(RangeError);
    await expect(createRuntime({ webhooks: [{ url: 'https://x.example', secret: 's', events: ['nope'] }] })).rejects.toThrow(RangeError);
  });
});
