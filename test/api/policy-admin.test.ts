/**
 * The operator's side of policies over HTTP: the admin API by agent id behind the admin token
 * (live and simulated), hidden in live mode without one, and policies kept by snapshots.
 */
import { describe, expect, it } from 'vitest';
import { closeAfter } from '../support/close-after.js';
import { createRuntime, type Runtime } from '../../src/index.js';

const BASE = 'http://policy.test';
const keep = closeAfter<Runtime>();

async function world(options: Parameters<typeof createRuntime>[0] = {}): Promise<Runtime> {
  const runtime = keep(await createRuntime(options));
  return runtime;
}

function call(runtime: Runtime, method: string, path: string, body?: unknown, token?: string): Promise<Response> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return runtime.fetch(new Request(`${BASE}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
}

describe('the admin policy routes', () => {
  it('live, behind --admin-token: 401 without it, PUT/GET/DELETE by agent id with it, 404 for an unknown agent', async () => {
    const runtime = await world({ mode: 'live', adminToken: 'sekret' });
    const agent = await runtime.createAgent({ name: 'alice' });
    const path = `/admin/v1/agents/${agent.agent_id}/policy`;
    const policy = { wallet: { per_day: { usd: '100.00' } } };
    expect((await call(runtime, 'PUT', path, policy)).status).toBe(401);
    expect((await call(runtime, 'PUT', path, policy, 'wrong')).status).toBe(401);
    const put = await call(runtime, 'PUT', path, policy, 'sekret');
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ policy });
    expect(await (await call(runtime, 'GET', path, undefined, 'sekret')).json()).toEqual({ policy });
    const mine = await runtime.fetch(new Request(`${BASE}/v1/agent/policy`, { headers: { authorization: `Bearer ${agent.api_key}` } }));
    expect(await mine.json()).toEqual({ policy });
    const bad = await call(runtime, 'PUT', path, { wallet: { per_day: { usd: 'ten' } } }, 'sekret');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: unknown }).error).toMatchObject({ code: 'invalid_request', param: 'wallet.per_day.usd' });
    expect((await call(runtime, 'DELETE', path, undefined, 'sekret')).status).toBe(204);
    expect(await (await call(runtime, 'GET', path, undefined, 'sekret')).json()).toEqual({ policy: null });
    const unknown = await call(runtime, 'GET', '/admin/v1/agents/agt_nobody/policy', undefined, 'sekret');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('live without an admin token: not served (404)', async () => {
    const runtime = await world({ mode: 'live' });
    const agent = await runtime.createAgent({ name: 'alice' });
    expect((await call(runtime, 'GET', `/admin/v1/agents/${agent.agent_id}/policy`)).status).toBe(404);
  });

  it('a snapshot carries the policy and the day usage; a restore brings both back', async () => {
    const runtime = await world();
    const sim = runtime.simClient();
    const alice = await sim.createAgent({ name: 'alice', balances: { usd: '100' } });
    await sim.createAgent({ name: 'bob' });
    await sim.setAgentPolicy('alice', { wallet: { per_day: { usd: '10' } } });
    await runtime.agent(alice.api_key).wallet.send({ to: 'bob', amount: '8', asset: 'usd' });
    const snapshot = await sim.snapshot();
    const other = await world();
    await other.simClient().restore(snapshot);
    const client = other.agent(alice.api_key);
    expect(await client.policy.get()).toEqual({ policy: { wallet: { per_day: { usd: '10' } } } });
    await expect(client.wallet.send({ to: 'bob', amount: '3', asset: 'usd' })).rejects.toMatchObject({ status: 403, code: 'policy_violation', param: 'amount' });
    await client.wallet.send({ to: 'bob', amount: '2', asset: 'usd' });
  });
});
