import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, serve, type Runtime, type RunningServer } from '../../../src/index.js';
import { ServiceMetrics } from '../../../src/http/service-metrics.js';

/** The value of one sample line of a Prometheus text (`name{labels} value`), or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1], pair[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value) && Object.keys(found).length === Object.keys(labels).length) return Number(match[3]);
  }
  return undefined;
}

describe('GET /metrics', () => {
  let runtime: Runtime | undefined;
  let server: RunningServer | undefined;
  let metrics: ServiceMetrics | undefined;
  afterEach(async () => {
    await server?.close();
    await runtime?.close();
    metrics?.close();
    server = runtime = metrics = undefined;
  });

  it('counts the requests made by route template and status, with latency histograms, behind the admin token', async () => {
    runtime = await createRuntime({ seed: 1, adminToken: 'tok' });
    metrics = new ServiceMetrics(runtime);
    server = await serve(runtime, { port: 0, metrics });
    const admin = { authorization: 'Bearer tok' };
    const alice = (await (
      await fetch(`${server.url}/_sim/agents`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice', balances: { usd: '10' } }) })
    ).json()) as { api_key: string };
    for (let i = 0; i < 3; i++) await fetch(`${server.url}/v1/wallet/transactions/txn_${i}`, { headers: { authorization: `Bearer ${alice.api_key}` } });
    await fetch(`${server.url}/nowhere`);

    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    const answer = await fetch(`${server.url}/metrics`, { headers: admin });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await answer.text();
    expect(sample(text, 'agent_services_http_requests_total', { method: 'GET', route: '/v1/wallet/transactions/{transaction_id}', status: '404' })).toBe(3);
    expect(sample(text, 'agent_services_http_requests_total', { method: 'POST', route: '/_sim/agents', status: '201' })).toBe(1);
    expect(sample(text, 'agent_services_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(sample(text, 'agent_services_http_request_duration_seconds_count', { method: 'GET', route: '/v1/wallet/transactions/{transaction_id}' })).toBe(3);
    expect(sample(text, 'agent_services_http_request_duration_seconds_bucket', { method: 'GET', route: '/v1/wallet/transactions/{transaction_id}', le: '+Inf' })).toBe(3);
    expect(sample(text, 'agent_services_store_commit_seconds_count')).toBeGreaterThan(0);
    expect(text).toMatch(/^process_cpu_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
    expect(text).not.toContain(alice.api_key);
  });

  it('reports jobs due, mail queued, webhook deliveries pending, runs, sessions and transfers by rail and status', async () => {
    runtime = await createRuntime({ seed: 1 });
    metrics = new ServiceMetrics(runtime);
    server = await serve(runtime, { port: 0, metrics });
    const sim = runtime.simClient();
    const alice = runtime.agent((await sim.createAgent({ name: 'alice', balances: { usd: '100', usdc: '50' } })).api_key);
    await sim.createAgent({ name: 'bob' });
    await alice.wallet.send({ to: 'bob', amount: '5', asset: 'usd' });
    await alice.wallet.send({ to: '0x52908400098527886E0F7030069857D2E4169EE7', amount: '1', asset: 'usdc', network: 'base' });
    // The relay refuses the first attempt, so the message waits for its retry.
    await sim.addFault({ target: 'mail.send', effect: 'fail', count: 1 });
    await alice.email.send({ to: ['someone@example.com'], subject: 'hi', text: 'hello' });
    await alice.compute.run({ runtime: 'bash', code: 'exit 3' });
    const scrape = async () => (await fetch(`${server!.url}/metrics`)).text();

    let text = await scrape();
    expect(sample(text, 'agent_services_transfers_total', { rail: 'internal', direction: 'out', status: 'confirmed' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'agent_services_transfers_total', { rail: 'base', direction: 'out', status: 'pending' })).toBe(1);
    expect(sample(text, 'agent_services_sandbox_runs_total', { runtime: 'bash', exit: '3' })).toBe(1);
    expect(sample(text, 'agent_services_browser_sessions_open')).toBe(0);
    expect(sample(text, 'agent_services_mail_queued')).toBe(1);
    expect(sample(text, 'agent_services_webhook_deliveries_pending')).toBe(0);
    expect(sample(text, 'agent_services_jobs_scheduled', { type: 'wallet.settle' })).toBe(1);
    const dueBefore = sample(text, 'agent_services_jobs_due')!;

    await sim.advanceClock({ seconds: 3600 });
    text = await scrape();
    expect(sample(text, 'agent_services_transfers_total', { rail: 'base', direction: 'out', status: 'confirmed' })).toBe(1);
    expect(sample(text, 'agent_services_mail_queued')).toBe(0);
    expect(sample(text, 'agent_services_jobs_due')).toBe(0);
    expect(dueBefore).toBeGreaterThanOrEqual(0);
  });

  it('counts the settlement of a transfer it did not see created by the rail and direction of its record', async () => {
    runtime = await createRuntime({ seed: 1 });
    const sim = runtime.simClient();
    const alice = runtime.agent((await sim.createAgent({ name: 'alice', balances: { usdc: '50' } })).api_key);
    await alice.wallet.send({ to: '0x52908400098527886E0F7030069857D2E4169EE7', amount: '1', asset: 'usdc', network: 'base' });
    // Started after the send: as a process that another process's send is settled on, or a restarted one.
    metrics = new ServiceMetrics(runtime);
    server = await serve(runtime, { port: 0, metrics });
    await sim.advanceClock({ seconds: 3600 });
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(sample(text, 'agent_services_transfers_total', { rail: 'base', direction: 'out', status: 'confirmed' })).toBe(1);
    expect(text).not.toMatch(/agent_services_transfers_total\{[^}]*unknown/);
  });

  it('is not served without metrics (runtime.fetch, or serve without them)', async () => {
    runtime = await createRuntime({ seed: 1 });
    expect((await runtime.fetch(new Request('http://x/metrics'))).status).toBe(404);
  });
});
