// Quotas of a world two runtimes (two stores, two connection pools: what two processes have) serve
// on one PostgreSQL database: what one agent may keep or hold is counted in the database, so a
// burst split over both never passes it.
import { describe, expect, it } from 'vitest';
import { closeAfter } from '../support/close-after.js';
import { createRuntime, type Runtime } from '../../src/index.js';
import type { RuntimeOptions } from '../../src/runtime/runtime-options.js';
import { freshDatabase, postgresSkipReason } from '../support/postgres.js';

const skip = postgresSkipReason();
if (skip) console.log(`skipping the PostgreSQL quota tests: ${skip}`);

const keep = closeAfter<Runtime>();

async function twoRuntimes(options: RuntimeOptions): Promise<[Runtime, Runtime]> {
  const database = await freshDatabase();
  const a = keep(await createRuntime({ ...options, database }));
  const b = keep(await createRuntime({ ...options, database }));
  return [a, b];
}

function request(runtime: Runtime, key: string, method: string, path: string, body?: unknown): Promise<Response> {
  return runtime.fetch(
    new Request(`http://world.test${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
}

describe.skipIf(skip !== null)('quotas across the processes of one PostgreSQL world', () => {
  it('keeps the filesystem quota: 10 concurrent writes of 300 bytes against 1000 over both give exactly 3', async () => {
    const [a, b] = await twoRuntimes({ compute: { quotaBytes: 1000 } });
    const content = Buffer.alloc(300, 7).toString('base64');
    // Three agents at once, each with its own burst: more interleavings of the same race.
    const keys = await Promise.all(['writer-a', 'writer-b', 'writer-c'].map(async (name) => (await a.createAgent({ name })).api_key));
    const bursts = await Promise.all(keys.map((key) => Promise.all(Array.from({ length: 10 }, (_, i) => request(i % 2 === 0 ? a : b, key, 'PUT', '/v1/compute/fs', { path: `/f${i}.bin`, content })))));
    for (const [n, answers] of bursts.entries()) {
      const key = keys[n]!;
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(3);
      expect(statuses.filter((status) => status === 413)).toHaveLength(7);
      for (const answer of answers.filter((one) => one.status === 413)) expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('quota_exceeded');
      const listing = (await (await request(b, key, 'GET', '/v1/compute/fs')).json()) as { entries: Array<{ path: string; size: number }> };
      expect(listing.entries.reduce((sum, entry) => sum + entry.size, 0)).toBe(900);
    }
    // Freeing room through one process is seen by the other's next check.
    const key = keys[0]!;
    const listing = (await (await request(b, key, 'GET', '/v1/compute/fs')).json()) as { entries: Array<{ path: string }> };
    expect((await request(a, key, 'DELETE', `/v1/compute/fs?path=${encodeURIComponent(listing.entries[0]!.path)}`)).status).toBe(204);
    expect((await request(b, key, 'PUT', '/v1/compute/fs', { path: '/again.bin', content })).status).toBe(200);
    expect((await request(a, key, 'PUT', '/v1/compute/fs', { path: '/over.bin', content })).status).toBe(413);
  });

  it('counts browser sessions per agent over both: 6 concurrent opens against a limit of 2 give exactly 2', async () => {
    const [a, b] = await twoRuntimes({ browser: { provider: 'simulated', maxSessionsPerAgent: 2 } });
    const { api_key: key } = await a.createAgent({ name: 'browsing' });
    const { api_key: otherKey } = await a.createAgent({ name: 'other' });
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => request(i % 2 === 0 ? a : b, key, 'POST', '/v1/compute/browser/sessions', {})));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(2);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused).toHaveLength(4);
    expect(Number(refused[0]!.headers.get('retry-after'))).toBe(3600);
    // The limit is the agent's: another agent still opens one.
    expect((await request(b, otherKey, 'POST', '/v1/compute/browser/sessions', {})).status).toBe(201);
  });

  it('creates 40 agents at once over both, each with its own custody index and addresses', async () => {
    const [a, b] = await twoRuntimes({});
    // Every creation takes the next custody index from one counter: it waits its turn on the
    // counter's lock instead of losing the race and running again (at most 8 runs per unit).
    const agents = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).createAgent({ name: `agent-${i}` })));
    const addresses = await Promise.all(agents.map(async (agent, i) => (await (await request(i % 2 === 0 ? b : a, agent.api_key, 'GET', '/v1/wallet/addresses')).json()) as { addresses: Array<{ address: string }> }));
    const evm = addresses.map((answer) => answer.addresses[0]!.address);
    expect(new Set(evm).size).toBe(40);
  });

  it("lets an agent send while its keyed run is under way: the run's policy count waits for its end", async () => {
    const [a, b] = await twoRuntimes({});
    const runner = await a.createAgent({ name: 'runner', balances: { usd: '5.00' } });
    await b.createAgent({ name: 'payee' });
    const order: string[] = [];
    const running = a
      .fetch(
        new Request('http://world.test/v1/compute/run', {
          method: 'POST',
          headers: { authorization: `Bearer ${runner.api_key}`, 'content-type': 'application/json', 'idempotency-key': 'run-1' },
          body: JSON.stringify({ runtime: 'bash', code: 'while true; do :; done', timeout_seconds: 6 }),
        }),
      )
      .then(async (answer) => {
        order.push('run');
        return (await answer.json()) as { exit_code: number };
      });
    // Before, the run's policy count took the agent's policy lock inside the keyed unit and held
    // it until the run ended, so this send waited for the whole run. The send goes once the run
    // has had a second to start (it lasts six).
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const sent = await request(b, runner.api_key, 'POST', '/v1/wallet/send', { to: 'payee', amount: '1.00', asset: 'usd' });
    order.push('send');
    expect(sent.status).toBe(201);
    expect((await running).exit_code).toBe(124);
    expect(order).toEqual(['send', 'run']);
  });
});
