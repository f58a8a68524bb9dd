import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, serve, type Runtime, type RunningServer } from '../../src/index.js';
import type { RuntimeOptions } from '../../src/runtime/runtime-options.js';

const TOKEN = 'operator-token';

/** A served runtime and a fetch helper that sends the admin token unless told otherwise. */
async function open(options: RuntimeOptions) {
  const runtime = await createRuntime({ seed: 1, adminToken: TOKEN, ...options });
  const server = await serve(runtime, { port: 0 });
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, any>) : null, text };
  };
  const asAgent = (key: string, path = '/v1/agent') => call('GET', path, undefined, { authorization: `Bearer ${key}` });
  return { runtime, server, call, asAgent };
}

describe('the admin API /admin/v1', () => {
  const opened: Array<{ runtime: Runtime; server: RunningServer }> = [];
  afterEach(async () => {
    for (const { runtime, server } of opened.splice(0)) {
      await server.close();
      await runtime.close();
    }
  });
  const live = async (options: RuntimeOptions = {}) => {
    const world = await open({ mode: 'live', ...options });
    opened.push(world);
    return world;
  };

  it('answers only the admin token, and is hidden in live mode without one', async () => {
    const { call } = await live();
    expect((await call('GET', '/admin/v1/agents', undefined, {})).status).toBe(401);
    expect((await call('GET', '/admin/v1/agents', undefined, { authorization: 'Bearer wrong' })).body).toMatchObject({ error: { code: 'unauthorized' } });
    const hidden = await open({ mode: 'live', adminToken: undefined as never });
    opened.push(hidden);
    expect((await hidden.call('GET', '/admin/v1/agents', undefined, {})).body).toMatchObject({ error: { code: 'not_found' } });
  });

  it('creates an agent with its key shown once and its 12-character prefix, and never creates money', async () => {
    const { call, asAgent } = await live();
    const created = await call('POST', '/admin/v1/agents', { name: 'alice', display_name: 'Alice' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ agent_id: expect.stringMatching(/^agt_/), handle: 'alice.agents.test', email: 'alice@agents.test', phone_number: expect.stringMatching(/^\+/) });
    expect(created.body!.key_prefix).toBe(created.body!.api_key.slice(0, 12));
    expect((await asAgent(created.body!.api_key)).status).toBe(200);

    const withMoney = await call('POST', '/admin/v1/agents', { name: 'bob', balances: { usd: '100' } });
    expect(withMoney.status).toBe(400);
    expect(withMoney.body).toMatchObject({ error: { code: 'invalid_request', param: 'balances' } });
    expect((await call('POST', '/_sim/wallet/fund', { handle: 'alice', asset: 'usd', amount: '100' })).status).toBe(404);
    expect((await call('POST', '/admin/v1/wallet/fund', { handle: 'alice', asset: 'usd', amount: '100' })).status).toBe(404);
    expect((await call('POST', '/_sim/clock/advance', { seconds: 60 })).status).toBe(404);
    const balance = await asAgent(created.body!.api_key, '/v1/wallet/balance');
    expect(balance.body).toMatchObject({ fiat: { usd: '0.00' } });
    expect((await call('POST', '/admin/v1/agents', { name: 'alice' })).body).toMatchObject({ error: { code: 'already_exists' } });
  });

  it('lists agents newest first in pages and shows one with its status and keys, never a key', async () => {
    const { call } = await live();
    const keys: string[] = [];
    for (const name of ['ann', 'ben', 'cat']) keys.push((await call('POST', '/admin/v1/agents', { name })).body!.api_key);
    const first = await call('GET', '/admin/v1/agents?limit=2');
    expect(first.body!.agents.map((agent: { name: string }) => agent.name)).toEqual(['cat', 'ben']);
    const second = await call('GET', `/admin/v1/agents?limit=2&cursor=${encodeURIComponent(first.body!.next_cursor)}`);
    expect(second.body).toMatchObject({ agents: [{ name: 'ann' }], next_cursor: null });
    expect((await call('GET', '/admin/v1/agents?limit=0')).body).toMatchObject({ error: { code: 'invalid_request', param: 'limit' } });

    const shown = await call('GET', `/admin/v1/agents/${second.body!.agents[0].agent_id}`);
    expect(shown.body).toMatchObject({ name: 'ann', status: 'active', keys: [{ key_prefix: keys[0]!.slice(0, 12), created_at: expect.any(String), expires_at: null }] });
    for (const key of keys) {
      expect(first.text + second.text + shown.text).not.toContain(key);
    }
    expect((await call('GET', '/admin/v1/agents/agt_nobody')).body).toMatchObject({ error: { code: 'not_found' } });
  });

  it('suspends an agent (403 agent_suspended on its requests) and resumes it', async () => {
    const { call, asAgent } = await live();
    const alice = (await call('POST', '/admin/v1/agents', { name: 'alice' })).body!;
    const suspended = await call('POST', `/admin/v1/agents/${alice.agent_id}/suspend`);
    expect(suspended).toMatchObject({ status: 200, body: { agent_id: alice.agent_id, status: 'suspended' } });
    expect(await asAgent(alice.api_key)).toMatchObject({ status: 403, body: { error: { code: 'agent_suspended' } } });
    // A key made while suspended is suspended too.
    const rotated = (await call('POST', `/admin/v1/agents/${alice.agent_id}/keys`, { grace_seconds: 3600 })).body!;
    expect((await asAgent(rotated.api_key)).status).toBe(403);
    expect((await call('POST', `/admin/v1/agents/${alice.agent_id}/resume`)).body).toMatchObject({ status: 'active' });
    expect((await asAgent(alice.api_key)).status).toBe(200);
    expect((await asAgent(rotated.api_key)).status).toBe(200);
  });

  it('rotates a key without grace (the old one refused at once) and revokes keys by prefix', async () => {
    const { call, asAgent } = await live();
    const alice = (await call('POST', '/admin/v1/agents', { name: 'alice' })).body!;
    const rotated = await call('POST', `/admin/v1/agents/${alice.agent_id}/keys`, {});
    expect(rotated.status).toBe(201);
    expect(rotated.body!.key_prefix).toBe(rotated.body!.api_key.slice(0, 12));
    expect((await asAgent(alice.api_key)).status).toBe(401);
    expect((await asAgent(rotated.body!.api_key)).status).toBe(200);

    const graced = (await call('POST', `/admin/v1/agents/${alice.agent_id}/keys`, { grace_seconds: 3600 })).body!;
    expect((await asAgent(rotated.body!.api_key)).status).toBe(200);
    const shown = (await call('GET', `/admin/v1/agents/${alice.agent_id}`)).body!;
    expect(shown.keys).toEqual([
      { key_prefix: rotated.body!.key_prefix, created_at: expect.any(String), expires_at: expect.any(String) },
      { key_prefix: graced.key_prefix, created_at: expect.any(String), expires_at: null },
    ]);
    // Revoked at once, grace or not.
    const revoked = await call('DELETE', `/admin/v1/agents/${alice.agent_id}/keys/${rotated.body!.key_prefix}`);
    expect(revoked.status).toBe(204);
    expect((await asAgent(rotated.body!.api_key)).status).toBe(401);
    expect((await asAgent(graced.api_key)).status).toBe(200);
    expect((await call('DELETE', `/admin/v1/agents/${alice.agent_id}/keys/${rotated.body!.key_prefix}`)).status).toBe(404);
    expect((await call('POST', `/admin/v1/agents/${alice.agent_id}/keys`, { grace_seconds: -1 })).body).toMatchObject({ error: { code: 'invalid_request', param: 'grace_seconds' } });
  });

  it('ends a grace period on the service clock (simulation)', async () => {
    const world = await open({});
    opened.push(world);
    const { call, asAgent } = world;
    const alice = (await call('POST', '/admin/v1/agents', { name: 'alice' })).body!;
    const next = (await call('POST', `/admin/v1/agents/${alice.agent_id}/keys`, { grace_seconds: 60 })).body!;
    expect((await asAgent(alice.api_key)).status).toBe(200);
    await call('POST', '/_sim/clock/advance', { seconds: 59 });
    expect((await asAgent(alice.api_key)).status).toBe(200);
    await call('POST', '/_sim/clock/advance', { seconds: 1 });
    expect((await asAgent(alice.api_key)).status).toBe(401);
    expect((await asAgent(next.api_key)).status).toBe(200);
    expect((await call('GET', `/admin/v1/agents/${alice.agent_id}`)).body!.keys).toEqual([{ key_prefix: next.key_prefix, created_at: expect.any(String), expires_at: null }]);
  });

  it('gives new agents the numbers of the configured pool, then 409 conflict when it is empty', async () => {
    const { call } = await live({ phone: { numberPool: ['+14155552671', '+14155552672'] } });
    expect((await call('POST', '/admin/v1/agents', { name: 'ann' })).body).toMatchObject({ phone_number: '+14155552671' });
    expect((await call('POST', '/admin/v1/agents', { name: 'ben' })).body).toMatchObject({ phone_number: '+14155552672' });
    const third = await call('POST', '/admin/v1/agents', { name: 'cat' });
    expect(third).toMatchObject({ status: 409, body: { error: { code: 'conflict' } } });
    // Nothing of the refused creation was kept.
    expect((await call('GET', '/admin/v1/agents')).body!.agents.map((agent: { name: string }) => agent.name)).toEqual(['ben', 'ann']);
  });
});

describe('keys stored before keys were managed', () => {
  it('follow their agent: suspended with it, ended by its first rotation', async () => {
    const { MemoryStore } = await import('../../src/providers/store/memory-store.js');
    const { sha256Hex } = await import('../../src/core/shared/json.js');
    const store = new MemoryStore();
    const runtime = await createRuntime({ seed: 1, store });
    try {
      const admin = runtime.adminClient();
      const alice = await admin.createAgent({ name: 'alice' });
      // A key as the store held them before: only the agent id, in no agent's partition.
      const legacy = 'sk_legacy_key_of_an_older_world_0000000000';
      await store.transaction(async (tx) => tx.insert('api_keys', sha256Hex(legacy), { agent_id: alice.agent_id }));
      const profile = () => runtime.agent(legacy).identity.getProfile();
      await expect(profile()).resolves.toMatchObject({ agent_id: alice.agent_id });
      await admin.suspendAgent(alice.agent_id);
      await expect(profile()).rejects.toMatchObject({ status: 403, code: 'agent_suspended' });
      await admin.resumeAgent(alice.agent_id);
      await admin.createKey(alice.agent_id, { grace_seconds: 60 });
      await expect(profile()).resolves.toMatchObject({ agent_id: alice.agent_id });
      await runtime.sim.advance({ seconds: 60 });
      await expect(profile()).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
    } finally {
      await runtime.close();
    }
  });
});
