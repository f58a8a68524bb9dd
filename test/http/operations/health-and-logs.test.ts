import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, serve, type Runtime, type RunningServer } from '../../../src/index.js';
import { createRequestLogger } from '../../../src/http/request-log.js';
import { SmtpMailTransport } from '../../../src/providers/mail/smtp-mail-transport.js';

/** A pino destination that keeps every line written to it. */
function capture(): { stream: Writable; lines: () => Array<Record<string, unknown>>; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return {
    stream,
    text: () => text,
    lines: () =>
      text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

/** Resolves once `check` holds, re-checking after each turn of the event loop (lines are written asynchronously). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setImmediate(resolve));
}

describe('health, readiness and request logs of a served runtime', () => {
  let runtime: Runtime | undefined;
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    await runtime?.close();
    server = runtime = undefined;
  });

  it('answers /healthz and /readyz without auth, outside /v1', async () => {
    runtime = await createRuntime({ seed: 1, mode: 'live', adminToken: 'admin-secret' });
    server = await serve(runtime, { port: 0 });
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
    const post = await fetch(`${server.url}/healthz`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers /readyz 503 naming a mail relay that cannot be reached', async () => {
    // Port 1 on the loopback: nothing listens there, the connection is refused at once.
    runtime = await createRuntime({ seed: 1, email: { relay: 'smtp://127.0.0.1:1' } });
    const ready = await runtime.fetch(new Request('http://x/readyz'));
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'unready', failing: ['mail_relay'] });
    const health = await runtime.fetch(new Request('http://x/healthz'));
    expect(health.status).toBe(200);
  });

  it('counts a relay that answers as ready', async () => {
    const { SMTPServer } = await import('smtp-server');
    const relay = new SMTPServer({ authOptional: true, disabledCommands: ['STARTTLS'] });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    try {
      const port = (relay.server.address() as { port: number }).port;
      runtime = await createRuntime({ seed: 1, providers: { mailTransport: new SmtpMailTransport({ host: '127.0.0.1', port, pool: false }) } });
      const ready = await runtime.fetch(new Request('http://x/readyz'));
      expect(await ready.json()).toEqual({ status: 'ready' });
    } finally {
      await new Promise<void>((resolve) => relay.close(resolve));
    }
  });

  it('echoes the client X-Request-Id, makes one when there is none, and replaces one that is not visible ASCII', async () => {
    runtime = await createRuntime({ seed: 1 });
    server = await serve(runtime, { port: 0 });
    const given = await fetch(`${server.url}/v1/agent`, { headers: { 'x-request-id': 'client-42' } });
    expect(given.headers.get('x-request-id')).toBe('client-42');
    const made = await fetch(`${server.url}/v1/agent`);
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const spaced = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'has space' } });
    expect(spaced.headers.get('x-request-id')).not.toBe('has space');
  });

  it('writes one JSON line per request with its id, route template, status, time and agent, and never a key or token', async () => {
    const out = capture();
    const log = createRequestLogger({ destination: out.stream });
    runtime = await createRuntime({ seed: 1, adminToken: 'admin-secret-token' });
    server = await serve(runtime, { port: 0, sinks: [log.sink] });
    const admin = { authorization: 'Bearer admin-secret-token', 'content-type': 'application/json' };
    const created = (await (await fetch(`${server.url}/_sim/agents`, { method: 'POST', headers: { ...admin, 'x-request-id': 'create-1' }, body: JSON.stringify({ name: 'alice' }) })).json()) as {
      agent_id: string;
      api_key: string;
    };
    await fetch(`${server.url}/v1/wallet/transactions/txn_missing`, { headers: { authorization: `Bearer ${created.api_key}`, 'x-request-id': 'read-2' } });
    await fetch(`${server.url}/_dashboard?token=admin-secret-token`, { redirect: 'manual', headers: { 'x-request-id': 'dash-3' } });
    await fetch(`${server.url}/nowhere`, { headers: { 'x-request-id': 'lost-4' } });
    await until(() => out.lines().length >= 4);

    const byId = new Map(out.lines().map((line) => [line.req_id, line]));
    expect(byId.get('create-1')).toMatchObject({ level: 'info', method: 'POST', route: '/_sim/agents', status: 201, agent_id: null });
    expect(byId.get('read-2')).toMatchObject({ method: 'GET', route: '/v1/wallet/transactions/{transaction_id}', status: 404, agent_id: created.agent_id });
    expect(byId.get('dash-3')).toMatchObject({ route: '/_dashboard', status: 303 });
    expect(byId.get('lost-4')).toMatchObject({ route: null, status: 404 });
    for (const line of out.lines()) {
      expect(Object.keys(line).sort()).toEqual(['agent_id', 'level', 'method', 'ms', 'msg', 'req_id', 'route', 'status', 'time']);
      expect(typeof line.ms).toBe('number');
      expect(line.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    expect(out.text()).not.toContain(created.api_key);
    expect(out.text()).not.toContain('admin-secret-token');
  });

  it('censors keys, tokens and card numbers in any line the logger writes', async () => {
    const out = capture();
    const log = createRequestLogger({ destination: out.stream });
    log.logger.info({ api_key: 'sk_live_1', config: { admin_token: 'tok', smtp: { password: 'pw' } }, card: { number: '4242424242424242', cvv: '123' } }, 'anything');
    await until(() => out.lines().length === 1);
    for (const secret of ['sk_live_1', '"tok"', '"pw"', '4242424242424242', '"123"']) expect(out.text()).not.toContain(secret);
    expect(out.text()).toContain('[redacted]');
  });

  it('writes nothing below its level', async () => {
    const out = capture();
    const log = createRequestLogger({ destination: out.stream, level: 'warn' });
    runtime = await createRuntime({ seed: 1 });
    server = await serve(runtime, { port: 0, sinks: [log.sink] });
    await fetch(`${server.url}/healthz`);
    log.logger.warn('a warning');
    await until(() => out.lines().length >= 1);
    expect(out.lines().map((line) => line.msg)).toEqual(['a warning']);
  });
});
