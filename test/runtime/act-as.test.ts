/** `runtime.actAs`: an operator's in-process client that reads what the agent's own key would, and nothing reaches it from the wire. */
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/index.js';

let runtime: Runtime;
afterEach(() => runtime?.close());

describe('runtime.actAs', () => {
  it('answers the agent routes as the agent, without its key', async () => {
    runtime = await createRuntime({ seed: 3 });
    const alice = await runtime.createAgent({ name: 'alice', balances: { usd: '10' } });
    const bob = await runtime.createAgent({ name: 'bob' });
    const asAlice = await runtime.actAs(alice.agent_id);
    expect(await asAlice.identity.getProfile()).toEqual(await runtime.agent(alice.api_key).identity.getProfile());
    expect((await asAlice.wallet.getBalance()).fiat.usd).toBe('10.00');
    expect((await (await runtime.actAs(bob.agent_id)).wallet.getBalance()).fiat.usd).toBe('0.00');
  });

  it('refuses an agent id the world does not have, and an HTTP request cannot act as anyone', async () => {
    runtime = await createRuntime({ seed: 3 });
    const alice = await runtime.createAgent({ name: 'alice' });
    await expect(runtime.actAs('agt_nobody')).rejects.toThrow(expect.objectContaining({ status: 404, code: 'not_found' }));
    const answer = await runtime.fetch(new Request('http://x/v1/agent', { headers: { 'acting-agent-id': alice.agent_id } }));
    expect(answer.status).toBe(401);
  });
});
