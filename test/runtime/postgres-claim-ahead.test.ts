// Keyed requests on a PostgreSQL world two runtimes serve (what two processes have), with the
// Idempotency-Key claim asked for together with the API key's read once the key is known: the
// answers are those of the claim made after the read. A key revoked meanwhile is refused and its
// claim given back at once, a refused body likewise, and replays hold across both runtimes.
import { describe, expect, it } from 'vitest';
import { closeAfter } from '../support/close-after.js';
import { createRuntime, type Runtime } from '../../src/index.js';
import { freshDatabase, postgresSkipReason } from '../support/postgres.js';

const skip = postgresSkipReason();
if (skip) console.log(`skipping the PostgreSQL claim-ahead tests: ${skip}`);

const keep = closeAfter<Runtime>();

describe.skipIf(skip !== null)('claims asked for with the key read on PostgreSQL', () => {
  it('refuses a revoked key and frees its claim, frees the claim of a refused body, and replays across runtimes', async () => {
    const database = await freshDatabase();
    const a = keep(await createRuntime({ seed: 1, database }));
    const b = keep(await createRuntime({ seed: 1, database }));
    const alice = await a.createAgent({ name: 'alice', balances: { usd: '10' } });
    await a.createAgent({ name: 'bob' });
    const send = (runtime: Runtime, bearer: string, key: string, amount = '1') => runtime.dispatch({ routeId: 'wallet.send', bearer, idempotencyKey: key, body: { to: 'bob', amount, asset: 'usd' } });

    const first = await send(a, alice.api_key, 'k1');
    expect(first.status).toBe(201);
    // Known to both runtimes now: b's second replay asks its claim with the key read.
    for (let i = 0; i < 2; i++) {
      const replay = await send(b, alice.api_key, 'k1');
      expect(replay.headers['Idempotent-Replayed']).toBe('true');
      expect(replay.body).toEqual(first.body);
    }

    // A refused send keeps nothing: its key is free for a retry on the other process the moment it is answered.
    for (let i = 0; i < 20; i++) {
      expect((await send(a, alice.api_key, `k2-${i}`, 'lots')).status).toBe(400);
      expect((await send(b, alice.api_key, `k2-${i}`, '0.01')).status).toBe(201);
    }

    const rotated = await a.dispatch({ routeId: 'admin.createKey', bearer: null, params: { agent_id: alice.agent_id }, body: {} });
    expect(rotated.status).toBe(201);
    expect((await send(a, alice.api_key, 'k3')).status).toBe(401);
    expect((await send(b, alice.api_key, 'k3')).status).toBe(401);
    const newKey = (rotated.body as { api_key: string }).api_key;
    expect((await send(a, newKey, 'k3')).status).toBe(201);
    expect((await a.agent(newKey).wallet.getBalance()).fiat.usd).toBe('7.80');
  });
});
