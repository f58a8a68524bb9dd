// On a store shared across processes, a keyed request whose API key was seen before asks for its
// Idempotency-Key claim together with its key's read (one round trip, not two). The read still
// decides: a key refused meanwhile, or a request refused by validation, gives the claim back
// before it answers, and the decision is the one `begin` would make.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Dispatcher } from '../../../src/core/api/dispatcher.js';
import { bindRoute, defineRoute } from '../../../src/core/api/route.js';
import type { ClaimRelease, SharedStore, Store } from '../../../src/core/ports/store.js';
import { IdempotencyKeys } from '../../../src/core/services/idempotency.js';
import { MemoryStore } from '../../../src/providers/store/memory-store.js';
import { SimClock } from '../../../src/sim/sim-clock.js';

const echo = defineRoute({
  id: 'test.echo',
  method: 'POST',
  path: '/echo',
  auth: 'agent',
  tag: 'test',
  summary: 'answers its body',
  body: z.object({ n: z.number() }),
  response: z.object({ n: z.number() }),
  status: 201,
});

/** A world whose store claims across "processes" through a log, and whose key reads wait until let go. */
function world() {
  const log: string[] = [];
  const held = new Set<string>();
  const memory = new MemoryStore();
  const shared: Partial<SharedStore> = {
    claimReading: async <T>(name: string) => {
      log.push(`claim ${name}`);
      if (held.has(name)) return { release: undefined, record: undefined as T | undefined };
      held.add(name);
      const release: ClaimRelease = async () => {
        log.push(`release ${name}`);
        held.delete(name);
      };
      return { release, record: undefined as T | undefined };
    },
  };
  const store = new Proxy(memory, { get: (target, name, receiver) => (name === 'shared' ? shared : Reflect.get(target, name, receiver)) }) as Store;
  const keys = new Map([['key-a', 'agt_a']]);
  const pending: Array<() => void> = [];
  const dispatcher = new Dispatcher({
    routes: [bindRoute(echo, async (_context, input) => ({ n: (input.body as { n: number }).n }))],
    callers: {
      agentFor: (bearer) => {
        log.push(`read ${bearer}`);
        return new Promise((resolve) => pending.push(() => resolve(keys.get(bearer))));
      },
      adminAllowed: () => 'allowed',
    },
    idempotency: new IdempotencyKeys(store, new SimClock(0)),
  });
  /** Dispatches, letting each key read answer once the dispatcher has had its turn. */
  const call = async (bearer: string, key: string, body: unknown = { n: 1 }) => {
    const answer = dispatcher.dispatch({ routeId: 'test.echo', bearer, idempotencyKey: key, body });
    await new Promise((resolve) => setImmediate(resolve));
    for (const release of pending.splice(0)) release();
    return answer;
  };
  return { log, held, keys, call };
}

describe('a claim asked for with its key read', () => {
  it('goes before the read answers once the key is known, and decides as begin does', async () => {
    const { log, call } = world();
    expect((await call('key-a', 'k1')).status).toBe(201);
    // Unknown key: read first, then claimed.
    expect(log.slice(0, 2)).toEqual(['read key-a', 'claim idempotency:agt_a:k1']);
    log.length = 0;
    expect((await call('key-a', 'k2')).status).toBe(201);
    // Known key: claimed before its read was even asked for, so both travel together.
    expect(log.slice(0, 2)).toEqual(['claim idempotency:agt_a:k2', 'read key-a']);
    expect(log).toContain('release idempotency:agt_a:k2');
  });

  it('gives the claim back before a 401 answers when the key was revoked meanwhile', async () => {
    const { log, held, keys, call } = world();
    await call('key-a', 'k1');
    keys.delete('key-a');
    log.length = 0;
    const refused = await call('key-a', 'k2');
    expect(refused.status).toBe(401);
    expect(log).toEqual(['claim idempotency:agt_a:k2', 'read key-a', 'release idempotency:agt_a:k2']);
    expect(held.size).toBe(0);
  });

  it('gives the claim back before a 400 answers, so the key runs when the request is mended', async () => {
    const { held, call } = world();
    await call('key-a', 'k1');
    expect((await call('key-a', 'k3', { n: 'many' })).status).toBe(400);
    expect(held.size).toBe(0);
    expect((await call('key-a', 'k3')).status).toBe(201);
  });

  it('answers 409 for a key still in flight in this process, as begin does', async () => {
    const { call } = world();
    await call('key-a', 'k1');
    const [first, second] = await Promise.all([call('key-a', 'k4'), call('key-a', 'k4')]);
    expect([first.status, second.status].sort()).toEqual([201, 409]);
  });
});
