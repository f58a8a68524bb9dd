import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RuntimeSnapshot } from '../../src/index.js';
import { bearer, expectErrorResponse, jsonInit, openRawWorld, type World } from '../support/transports.js';

describe('GET /_sim/snapshot and POST /_sim/restore over HTTP', () => {
  let world: World;
  let early: { agent_id: string; api_key: string };
  let snapshot: RuntimeSnapshot;

  const createAgent = async (name: string) => {
    const response = await world.raw('/_sim/agents', jsonInit('POST', { name }));
    expect(response.status).toBe(201);
    return (await response.json()) as { agent_id: string; api_key: string };
  };
  const takeSnapshot = async () => {
    const response = await world.raw('/_sim/snapshot');
    expect(response.status).toBe(200);
    return (await response.json()) as RuntimeSnapshot;
  };
  const restore = (body: unknown) => world.raw('/_sim/restore', jsonInit('POST', body));

  beforeEach(async () => {
    world = await openRawWorld('http');
    early = await createAgent('early');
    snapshot = await takeSnapshot();
  });
  afterEach(() => world.close());

  it('describes the whole state as JSON of this service domain', () => {
    expect(snapshot).toMatchObject({ format: 'agent-services/snapshot', version: 1, service_domain: 'agents.test', clock: { now: '2026-01-01T00:00:00.000Z' } });
    expect(JSON.stringify(snapshot)).not.toContain(early.api_key);
  });

  it('restores with 204 and no body; later agents are gone and their keys refused', async () => {
    const late = await createAgent('late');
    expect((await world.raw('/v1/agent/late')).status).toBe(200);

    const response = await restore(snapshot);
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');

    await expectErrorResponse(await world.raw('/v1/agent/late'), 404, 'not_found');
    await expectErrorResponse(await world.raw('/v1/agent', { headers: bearer(late.api_key) }), 401, 'unauthorized');
  });

  it('keeps the earlier agents and their keys working', async () => {
    await createAgent('late');
    expect((await restore(snapshot)).status).toBe(204);

    const publicProfile = await world.raw('/v1/agent/early');
    expect(publicProfile.status).toBe(200);
    const own = await world.raw('/v1/agent', { headers: bearer(early.api_key) });
    expect(own.status).toBe(200);
    expect(await own.json()).toMatchObject({ agent_id: early.agent_id, handle: 'early.agents.test' });
  });

  it('brings back profile changes made after the snapshot', async () => {
    const patched = await world.raw('/v1/agent', jsonInit('PATCH', { bio: 'changed later' }, bearer(early.api_key)));
    expect(patched.status).toBe(200);
    await restore(snapshot);
    const own = await world.raw('/v1/agent', { headers: bearer(early.api_key) });
    expect(await own.json()).toMatchObject({ bio: null });
  });

  it('rewinds the clock, the event log and randomness: a restored world snapshots the same again', async () => {
    await world.raw('/_sim/clock/advance', jsonInit('POST', { seconds: 3600 }));
    const late = await createAgent('late');
    await restore(snapshot);

    expect(await takeSnapshot()).toEqual(snapshot);
    expect(await (await world.raw('/_sim/clock')).json()).toEqual({ now: '2026-01-01T00:00:00.000Z' });
    const events = (await (await world.raw('/_sim/events?limit=1000')).json()) as { events: Array<{ data: Record<string, unknown> }> };
    expect(events.events.map((event) => event.data.handle)).not.toContain('late.agents.test');

    // The same call after the restore draws the same ids as before it.
    await world.raw('/_sim/clock/advance', jsonInit('POST', { seconds: 3600 }));
    const again = await createAgent('late');
    expect(again).toEqual(late);
  });

  it('refuses a snapshot of another service domain with 400 invalid_request and changes nothing', async () => {
    await createAgent('late');
    await expectErrorResponse(await restore({ ...snapshot, service_domain: 'other.test' }), 400, 'invalid_request', 'service_domain');
    expect((await world.raw('/v1/agent/late')).status).toBe(200);
  });

  it('refuses a body that is not a snapshot with 400 invalid_request', async () => {
    await expectErrorResponse(await restore({}), 400, 'invalid_request');
    await expectErrorResponse(await restore({ ...snapshot, version: 2 }), 400, 'invalid_request', 'version');
    await expectErrorResponse(await restore({ ...snapshot, clock: { now: 'noon' } }), 400, 'invalid_request', 'clock.now');
    expect((await world.raw('/v1/agent/early')).status).toBe(200);
  });
});
