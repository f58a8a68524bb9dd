import { describe, expect, it } from 'vitest';
import { ApiError, createRuntime, type Runtime } from '../../../src/index.js';

function createAgent(runtime: Runtime, body: unknown, idempotencyKey: string | null) {
  return runtime.dispatch({ routeId: 'sim.createAgent', body, bearer: null, idempotencyKey });
}

async function eventCount(runtime: Runtime): Promise<number> {
  return (await runtime.sim.events(0, 1000)).events.length;
}

describe('Idempotency-Key', () => {
  it('replays the first answer with Idempotent-Replayed: true and creates nothing new', async () => {
    const runtime = await createRuntime();
    const first = await createAgent(runtime, { name: 'alice' }, 'key-1');
    expect(first.status).toBe(201);
    expect(first.headers['Idempotent-Replayed']).toBeUndefined();
    const events = await eventCount(runtime);
    expect(events).toBeGreaterThan(0);

    const replay = await createAgent(runtime, { name: 'alice' }, 'key-1');
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers['Idempotent-Replayed']).toBe('true');
    expect(await eventCount(runtime)).toBe(events);
  });

  it('replays through the in-process client too, with the same API key', async () => {
    const runtime = await createRuntime();
    const sim = runtime.simClient();
    const first = await sim.createAgent({ name: 'bob' }, { idempotencyKey: 'k' });
    const events = await eventCount(runtime);
    const again = await sim.createAgent({ name: 'bob' }, { idempotencyKey: 'k' });
    expect(again).toEqual(first);
    expect(await eventCount(runtime)).toBe(events);
    // the replayed key still authenticates the one agent that exists
    expect((await runtime.agent(again.api_key).identity.getProfile()).agent_id).toBe(first.agent_id);
  });

  it('without a key, repeats are new requests', async () => {
    const runtime = await createRuntime();
    expect((await createAgent(runtime, { name: 'carol' }, null)).status).toBe(201);
    const second = await createAgent(runtime, { name: 'carol' }, null);
    expect(second.status).toBe(409);
    expect(second.headers['Idempotent-Replayed']).toBeUndefined();
  });

  it('answers 409 idempotency_conflict for the same key with a different body', async () => {
    const runtime = await createRuntime();
    await createAgent(runtime, { name: 'alice' }, 'shared');
    const events = await eventCount(runtime);
    const other = await createAgent(runtime, { name: 'bob' }, 'shared');
    expect(other.status).toBe(409);
    expect((other.body as { error: { code: string } }).error.code).toBe('idempotency_conflict');
    expect(await eventCount(runtime)).toBe(events);
    await expect(runtime.simClient().createAgent({ name: 'bob' }, { idempotencyKey: 'shared' })).rejects.toMatchObject({
      status: 409,
      code: 'idempotency_conflict',
    });
  });

  it('stores a 409 already_exists outcome and replays it', async () => {
    const runtime = await createRuntime();
    await createAgent(runtime, { name: 'taken' }, null);
    const refused = await createAgent(runtime, { name: 'taken' }, 'k409');
    expect(refused.status).toBe(409);
    expect((refused.body as { error: { code: string } }).error.code).toBe('already_exists');

    const replay = await createAgent(runtime, { name: 'taken' }, 'k409');
    expect(replay.status).toBe(409);
    expect(replay.body).toEqual(refused.body);
    expect(replay.headers['Idempotent-Replayed']).toBe('true');
  });

  it('does not store a 400 validation failure: the same key then works with a valid body', async () => {
    const runtime = await createRuntime();
    const invalid = await createAgent(runtime, { name: 'Not Valid!' }, 'k400');
    expect(invalid.status).toBe(400);
    expect((invalid.body as { error: { code: string; param?: string } }).error).toMatchObject({ code: 'invalid_request', param: 'name' });
    const reserved = await createAgent(runtime, { name: 'admin' }, 'k400');
    expect(reserved.status).toBe(400);
    expect(reserved.headers['Idempotent-Replayed']).toBeUndefined();

    const valid = await createAgent(runtime, { name: 'valid-name' }, 'k400');
    expect(valid.status).toBe(201);
    expect(valid.headers['Idempotent-Replayed']).toBeUndefined();
  });

  it('refuses a key longer than 255 characters with 400 invalid_request on Idempotency-Key', async () => {
    const runtime = await createRuntime();
    const tooLong = await createAgent(runtime, { name: 'alice' }, 'k'.repeat(256));
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toMatchObject({ error: { code: 'invalid_request', param: 'Idempotency-Key' } });
    expect(await eventCount(runtime)).toBe(0);

    const longest = await createAgent(runtime, { name: 'alice' }, 'k'.repeat(255));
    expect(longest.status).toBe(201);

    const error = await runtime
      .simClient()
      .createAgent({ name: 'bob' }, { idempotencyKey: 'x'.repeat(300) })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_request', param: 'Idempotency-Key' });
  });

  it('answers 409 idempotency_key_in_use to a repeat while the first is still running', async () => {
    const runtime = await createRuntime();
    // createAgent awaits a signature before it writes, so the first request is still running
    // when the second arrives
    let firstSettled = false;
    const firstRequest = createAgent(runtime, { name: 'racer' }, 'busy').then((result) => {
      firstSettled = true;
      return result;
    });
    const secondRequest = createAgent(runtime, { name: 'racer' }, 'busy');
    const second = await secondRequest;
    expect(firstSettled).toBe(false);
    const first = await firstRequest;

    expect(first.status).toBe(201);
    expect(second.status).toBe(409);
    expect((second.body as { error: { code: string } }).error.code).toBe('idempotency_key_in_use');
    expect((await runtime.sim.events(0, 1000)).events.filter((event) => event.type === 'agent.created')).toHaveLength(1);

    const later = await createAgent(runtime, { name: 'racer' }, 'busy');
    expect(later.status).toBe(201);
    expect(later.headers['Idempotent-Replayed']).toBe('true');
    expect(later.body).toEqual(first.body);
  });

  it('forgets a key after 24 hours of service time', async () => {
    const runtime = await createRuntime();
    await createAgent(runtime, { name: 'alice' }, 'day');
    await runtime.sim.advance({ seconds: 86_399 });
    expect((await createAgent(runtime, { name: 'bob' }, 'day')).status).toBe(409);

    await runtime.sim.advance({ seconds: 1 });
    const fresh = await createAgent(runtime, { name: 'bob' }, 'day');
    expect(fresh.status).toBe(201);
    expect(fresh.headers['Idempotent-Replayed']).toBeUndefined();
    expect((fresh.body as { handle: string }).handle).toBe('bob.agents.test');

    // and the key now belongs to the new request
    const replay = await createAgent(runtime, { name: 'bob' }, 'day');
    expect(replay.headers['Idempotent-Replayed']).toBe('true');
  });
});
