// The faults gate of two processes on one PostgreSQL world: the process that arms a fault sees it
// at once; the other once word of the commit arrives (a NOTIFY), never by reading per request.
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfter } from '../../support/close-after.js';
import { FaultService } from '../../../src/core/faults/fault.service.js';
import type { Store } from '../../../src/core/ports/store.js';
import { StoreEventLog } from '../../../src/providers/events/store-event-log.js';
import { PostgresStore } from '../../../src/providers/store/postgres/postgres-store.js';
import { followFaults, type FaultsGate } from '../../../src/runtime/faults/faults-gate.js';
import { SeededRandom } from '../../../src/sim/seeded-random.js';
import { SimClock } from '../../../src/sim/sim-clock.js';
import { createRuntime, type Runtime } from '../../../src/index.js';
import { freshDatabase, postgresSkipReason } from '../../support/postgres.js';
import { ApiError } from '../../../src/core/shared/api-error.js';

const skip = postgresSkipReason();
if (skip) console.log(`faults-gate-postgres: skipped, ${skip}`);

/** One process's side: its fault service and a gate over it that counts its store reads. */
interface Process {
  faults: FaultService;
  gate: FaultsGate;
  reads: () => number;
}

function processOn(store: Store): Process {
  const clock = new SimClock();
  const faults = new FaultService(store, clock, new SeededRandom(1), new StoreEventLog(store, clock));
  let reads = 0;
  // No age limit: only this process's writes and word of the other's commits may change the answer.
  const gate = followFaults(
    {
      anyArmed: (view) => {
        reads++;
        return faults.anyArmed(view);
      },
      onWrite: (listener) => faults.onWrite(listener),
    },
    store,
    Number.POSITIVE_INFINITY,
  );
  return { faults, gate, reads: () => reads };
}

/** Polls the gate (a cheap call once it knows) until it answers `armed`, for at most 10 s. */
async function until(gate: FaultsGate, armed: boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await gate.armed()) !== armed) {
    if (Date.now() > deadline) throw new Error(`the gate did not turn ${armed} within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(skip !== null)('the faults gate on a PostgreSQL world of two processes', () => {
  const keep = closeAfter<PostgresStore>();

  async function twoProcesses(): Promise<[Process, Process]> {
    const url = await freshDatabase();
    const a = keep(await PostgresStore.open(url, { maxConnections: 4 }));
    const b = keep(await PostgresStore.open(url, { maxConnections: 4 }));
    return [processOn(a), processOn(b)];
  }

  it('reads the store once, then answers without a round trip', async () => {
    const [a] = await twoProcesses();
    expect(await a.gate.armed()).toBe(false);
    for (let i = 0; i < 20; i++) expect(a.gate.armed()).toBe(false);
    expect(a.reads()).toBe(1);
  });

  it('a fault armed through one process: at once there, on the other after its commit is announced', async () => {
    const [a, b] = await twoProcesses();
    expect(await a.gate.armed()).toBe(false);
    expect(await b.gate.armed()).toBe(false);
    const fault = await a.faults.add({ target: 'persistence.write', effect: 'fail', match: { route: 'wallet.send' } });
    expect(await a.gate.armed()).toBe(true);
    await until(b.gate, true);
    // B read again once, on the word of A's commit; until then it answered from memory.
    expect(b.reads()).toBe(2);

    // Removed through B: at once on B, on A after the announcement.
    await b.faults.remove(fault.fault_id);
    expect(await b.gate.armed()).toBe(false);
    await until(a.gate, false);

    // A fault used up by its count on A (a hit counted inside a transaction) ends on B too.
    await a.faults.add({ target: 'chain.submit', effect: 'fail', count: 1 });
    await until(b.gate, true);
    const hit = await a.faults.strikeNow('chain.submit', { agent_id: null, fields: { to: 'x' } });
    expect(hit?.effect).toBe('fail');
    expect(await a.gate.armed()).toBe(false);
    await until(b.gate, false);
  });

  describe('two runtimes on one database', () => {
    const runtimes: Runtime[] = [];
    afterEach(async () => {
      for (const runtime of runtimes.splice(0)) await runtime.close();
    });

    /** Sends through `runtime` until one fails (true) or succeeds (false) as wanted, for at most 10 s. */
    async function untilSendFails(runtime: Runtime, apiKey: string, fails: boolean): Promise<void> {
      const client = runtime.agent(apiKey);
      const deadline = Date.now() + 10_000;
      for (;;) {
        let failed: boolean;
        try {
          await client.wallet.send({ to: 'bob', amount: '0.01', asset: 'usd' });
          failed = false;
        } catch (error) {
          if (!(error instanceof ApiError) || error.code !== 'internal_error') throw error;
          failed = true;
        }
        if (failed === fails) return;
        if (Date.now() > deadline) throw new Error(`sends did not ${fails ? 'start' : 'stop'} failing within 10 s`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }

    it('a persistence.write fault armed through one process reaches the requests of the other', async () => {
      const database = await freshDatabase();
      const quiet = { onInternalError: () => {} };
      const a = await createRuntime({ database, ...quiet });
      runtimes.push(a);
      const b = await createRuntime({ database, ...quiet });
      runtimes.push(b);
      const alice = await a.simClient().createAgent({ name: 'alice', balances: { usd: '100' } });
      await a.simClient().createAgent({ name: 'bob' });
      await untilSendFails(b, alice.api_key, false);
      await a.simClient().addFault({ target: 'persistence.write', effect: 'fail', match: { route: 'wallet.send' } });
      // On A at once; on B once the commit's word arrives (B's requests carry their route from then on).
      await expect(a.agent(alice.api_key).wallet.send({ to: 'bob', amount: '0.01', asset: 'usd' })).rejects.toMatchObject({ code: 'internal_error' });
      await untilSendFails(b, alice.api_key, true);
      await b.simClient().clearFaults();
      await untilSendFails(a, alice.api_key, false);
    });
  });
});
