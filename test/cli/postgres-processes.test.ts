// Two server processes on one PostgreSQL database, checked through HTTP only, as a team running
// the service behind a load balancer would see it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import postgres from 'postgres';
import { freshDatabase, postgresSkipReason } from '../support/postgres.js';
import { startThrowawayPostgres } from '../support/throwaway-postgres.js';
import { SCHEMA_VERSION } from '../../src/providers/store/postgres/postgres-schema.js';
import { startReceiver } from '../core/webhooks/webhook-receiver.js';
import { CLI_TEST_TIMEOUT_MS, killAll, runToEnd } from './cli-process.js';
import { call, createAgent, startDatabaseServer } from './database-servers.js';
import { ensureBuilt } from './ensure-built.js';

const skip = postgresSkipReason();
if (skip) console.log(`skipping the PostgreSQL process tests: ${skip}`);

beforeAll(async () => {
  if (!skip) await ensureBuilt();
}, CLI_TEST_TIMEOUT_MS);

afterAll(() => killAll());

const startServer = startDatabaseServer;
const agent = createAgent;

describe.skipIf(skip !== null)('two processes serving one PostgreSQL world', () => {
  it('share agents, balances, history and events, and keep them across a restart', { timeout: CLI_TEST_TIMEOUT_MS }, async (t) => {
    const database = await freshDatabase({ migrated: false });
    const [a, b] = await Promise.all([startServer(t, database), startServer(t, database)]);
    const alice = await agent(a.url, 'alice', { usd: '10.00' });
    await agent(b.url, 'bob');
    const sent = await call(b.url, 'POST', '/v1/wallet/send', { key: alice.key, body: { to: 'bob', amount: '1.50', asset: 'usd' } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect((await call(a.url, 'GET', '/v1/wallet/balance', { key: alice.key })).body.fiat.usd).toBe('8.50');
    const events = await call(a.url, 'GET', '/_sim/events?limit=100');
    const seqs = events.body.events.map((event: { seq: number }) => event.seq);
    expect(seqs).toEqual([...seqs].sort((x: number, y: number) => x - y));
    expect(events.body.events.filter((event: { type: string }) => event.type === 'wallet.transaction.created')).toHaveLength(3);

    a.kill();
    b.kill();
    await Promise.all([a.closed, b.closed]);
    const c = await startServer(t, database);
    expect((await call(c.url, 'GET', '/v1/wallet/balance', { key: alice.key })).body.fiat.usd).toBe('8.50');
    const history = await call(c.url, 'GET', '/v1/wallet/transactions', { key: alice.key });
    expect(history.body.transactions.map((record: { amount: string }) => record.amount)).toContain('1.50');
    expect((await call(c.url, 'GET', '/_sim/events?limit=100')).body.events.map((event: { seq: number }) => event.seq)).toEqual(seqs);
  });

  it('never overdraws: 20 concurrent sends of 1.00 from 10.00 over both processes give exactly 10', { timeout: CLI_TEST_TIMEOUT_MS }, async (t) => {
    const database = await freshDatabase();
    const [a, b] = await Promise.all([startServer(t, database), startServer(t, database)]);
    const payer = await agent(a.url, 'payer', { usd: '10.00' });
    await agent(b.url, 'payee');
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i % 2 === 0 ? a.url : b.url, 'POST', '/v1/wallet/send', { key: payer.key, body: { to: 'payee', amount: '1.00', asset: 'usd' } })));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(10);
    expect(answers.filter((answer) => answer.status === 402)).toHaveLength(10);
    expect((await call(b.url, 'GET', '/v1/wallet/balance', { key: payer.key })).body.fiat.usd).toBe('0.00');
    const ledger = await call(a.url, 'GET', '/_sim/wallet/ledger');
    expect(ledger.body.assets.usd.held).toBe('10.00');
  });

  it('replays an Idempotency-Key on the other process, and refuses a different body under it', { timeout: CLI_TEST_TIMEOUT_MS }, async (t) => {
    const database = await freshDatabase();
    const [a, b] = await Promise.all([startServer(t, database), startServer(t, database)]);
    const payer = await agent(a.url, 'payer', { usd: '10.00' });
    await agent(a.url, 'payee');
    const body = { to: 'payee', amount: '2.00', asset: 'usd' };
    const first = await call(a.url, 'POST', '/v1/wallet/send', { key: payer.key, body, idempotencyKey: 'k-1' });
    const again = await call(b.url, 'POST', '/v1/wallet/send', { key: payer.key, body, idempotencyKey: 'k-1' });
    expect(again.status).toBe(first.status);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await call(b.url, 'POST', '/v1/wallet/send', { key: payer.key, body: { ...body, amount: '3.00' }, idempotencyKey: 'k-1' })).status).toBe(409);
    expect((await call(b.url, 'GET', '/v1/wallet/balance', { key: payer.key })).body.fiat.usd).toBe('8.00');
  });

  it('delivers an SMS sent through one process by a clock advance on the other, one event per status', { timeout: CLI_TEST_TIMEOUT_MS }, async (t) => {
    const database = await freshDatabase();
    const [a, b] = await Promise.all([startServer(t, database), startServer(t, database)]);
    const texter = await agent(a.url, 'texter');
    const receiver = await startReceiver();
    t.onTestFinished(() => receiver.close());
    expect((await call(b.url, 'POST', '/v1/webhooks', { key: texter.key, body: { url: receiver.url } })).status).toBe(201);
    const sms = await call(a.url, 'POST', '/v1/phone/sms', { key: texter.key, body: { to: '+14155550100', body: 'hello' } });
    expect(sms.status, JSON.stringify(sms.body)).toBe(201);
    const advanced = await call(b.url, 'POST', '/_sim/clock/advance', { body: { seconds: 3600 } });
    expect(advanced.status).toBe(200);
    const shown = await call(a.url, 'GET', `/v1/phone/sms/${sms.body.message_id}`, { key: texter.key });
    expect(shown.body.status).toBe('delivered');
    const events = (await call(a.url, 'GET', '/_sim/events?limit=200')).body.events as Array<{ type: string; data: Record<string, unknown> }>;
    const statuses = events.filter((event) => event.type === 'sms.status_changed' && event.data.message_id === sms.body.message_id).map((event) => event.data.status);
    expect(statuses).toEqual(['queued', 'sent', 'delivered']);
    // One webhook delivery per event, whichever process ran its job.
    const smsEvents = events.filter((event) => event.type === 'sms.status_changed' && event.data.message_id === sms.body.message_id);
    await receiver.waitFor(smsEvents.length);
    const later = await call(a.url, 'POST', '/_sim/clock/advance', { body: { seconds: 3600 } });
    const ids = receiver.received.filter((delivery) => delivery.body.data.message_id === sms.body.message_id).map((delivery) => delivery.body.id);
    expect(ids).toHaveLength(smsEvents.length);
    expect(new Set(ids).size).toBe(ids.length);
    // Both processes read the same clock afterwards.
    expect(later.body.now > advanced.body.now).toBe(true);
    expect((await call(b.url, 'GET', '/_sim/clock')).body.now).toBe(later.body.now);
  });

  it("posts an event once while its first attempt waits for the receiver and another process's advance runs its retry", { timeout: CLI_TEST_TIMEOUT_MS }, async (t) => {
    const database = await freshDatabase();
    const [a, b] = await Promise.all([startServer(t, database), startServer(t, database)]);
    const payer = await agent(a.url, 'payer', { usd: '5.00' });
    const payee = await agent(a.url, 'payee');
    const receiver = await startReceiver();
    t.onTestFinished(() => receiver.close());
    expect((await call(a.url, 'POST', '/v1/webhooks', { key: payee.key, body: { url: receiver.url, events: ['wallet.transaction.received'] } })).status).toBe(201);
    // The receiver holds the first attempt (made in the background by the process that committed
    // the send) while the other process advances past the first retry (60 s later).
    receiver.answer = 'hang';
    expect((await call(a.url, 'POST', '/v1/wallet/send', { key: payer.key, body: { to: 'payee', amount: '1.00', asset: 'usd' } })).status).toBe(201);
    await receiver.waitFor(1);
    receiver.answer = 200;
    const advancing = call(b.url, 'POST', '/_sim/clock/advance', { body: { seconds: 3600 } });
    // Unguarded, the retry posts the event a second time within milliseconds; give it two seconds.
    for (let waited = 0; waited < 2000 && receiver.received.length < 2; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    receiver.release(200);
    expect((await advancing).status).toBe(200);
    expect(receiver.received.map((delivery) => delivery.body.type)).toEqual(['wallet.transaction.received']);
    const deliveries = (await call(b.url, 'GET', '/_sim/webhooks/deliveries')).body.deliveries as Array<{ status: string; attempts: number }>;
    expect(deliveries.map((delivery) => [delivery.status, delivery.attempts])).toEqual([['delivered', 1]]);
  });

  it('shows filesystem entries, memories, uploaded files and events written through one process through the other', { timeout: CLI_TEST_TIMEOUT_MS }, async (t) => {
    const database = await freshDatabase();
    const [a, b] = await Promise.all([startServer(t, database), startServer(t, database)]);
    const writer = await agent(a.url, 'writer');
    const content = Buffer.from('shared bytes').toString('base64');
    expect((await call(a.url, 'PUT', '/v1/compute/fs', { key: writer.key, body: { path: '/notes/a.txt', content } })).status).toBeLessThan(300);
    const read = await call(b.url, 'GET', '/v1/compute/fs/content?path=/notes/a.txt', { key: writer.key });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    const memory = await call(a.url, 'POST', '/v1/memory', { key: writer.key, body: { content: 'the launch is on tuesday' } });
    expect(memory.status, JSON.stringify(memory.body)).toBe(201);
    const found = await call(b.url, 'POST', '/v1/memory/search', { key: writer.key, body: { query: 'when is the launch' } });
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    expect(JSON.stringify(found.body)).toContain('tuesday');
    // An uploaded file: listed and downloaded through the other process, its bytes the same.
    const form = new FormData();
    form.append('file', new Blob(['minutes of the launch meeting']), 'minutes.txt');
    const uploaded = await fetch(`${a.url}/v1/memory/files`, { method: 'POST', headers: { authorization: `Bearer ${writer.key}` }, body: form });
    expect(uploaded.status).toBe(201);
    const { file_id: fileId } = (await uploaded.json()) as { file_id: string };
    const listed = await call(b.url, 'GET', '/v1/memory/files', { key: writer.key });
    expect(listed.body.files.map((file: { file_id: string }) => file.file_id)).toEqual([fileId]);
    const download = await fetch(listed.body.files[0].url, { headers: { authorization: `Bearer ${writer.key}` } });
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('minutes of the launch meeting');
    // Events appended through one process are read through the other.
    const events = (await call(b.url, 'GET', '/_sim/events?limit=200')).body.events as Array<{ type: string }>;
    expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(['memory.created', 'file.uploaded']));
  });

  it('loses and doubles nothing when one process is killed in the middle of a keyed burst', { timeout: CLI_TEST_TIMEOUT_MS }, async (t) => {
    const database = await freshDatabase();
    const [a, b] = await Promise.all([startServer(t, database), startServer(t, database)]);
    const payer = await agent(a.url, 'payer', { usd: '100.00' });
    await agent(a.url, 'payee');
    const body = { to: 'payee', amount: '1.00', asset: 'usd' };
    const burst = Array.from({ length: 40 }, (_, i) => call(i % 2 === 0 ? a.url : b.url, 'POST', '/v1/wallet/send', { key: payer.key, body, idempotencyKey: `burst-${i}` }).catch(() => null));
    setTimeout(() => a.kill(), 20);
    await Promise.all(burst);
    // Every key retried on the survivor: each send happens exactly once, whoever answered first.
    for (let i = 0; i < 40; i++) {
      let answer = await call(b.url, 'POST', '/v1/wallet/send', { key: payer.key, body, idempotencyKey: `burst-${i}` });
      for (let tries = 0; answer.status === 409 && tries < 100; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        answer = await call(b.url, 'POST', '/v1/wallet/send', { key: payer.key, body, idempotencyKey: `burst-${i}` });
      }
      expect(answer.status).toBe(201);
    }
    expect((await call(b.url, 'GET', '/v1/wallet/balance', { key: payer.key })).body.fiat.usd).toBe('60.00');
    const history = await call(b.url, 'GET', '/v1/wallet/transactions?limit=100', { key: payer.key });
    expect(history.body.transactions.filter((record: { direction: string }) => record.direction === 'out')).toHaveLength(40);
  });

  it('refuses a database of a newer schema, naming both versions', { timeout: CLI_TEST_TIMEOUT_MS }, async (t) => {
    const database = await freshDatabase();
    const sql = postgres(database, { onnotice: () => {}, max: 1 });
    await sql`UPDATE agent_services_meta SET value = '999' WHERE key = 'schema_version'`;
    await sql.end();
    const served = await runToEnd(t, ['serve', '--port', '0', '--database', database]);
    expect(served.code).toBe(1);
    expect(served.stderr).toMatch(new RegExp(`999.*\\b${SCHEMA_VERSION}\\b`));
    const migrated = await runToEnd(t, ['migrate', '--database', database]);
    expect(migrated.code).toBe(1);
    expect(migrated.stderr).toMatch(/999/);
  });

  it('says in one line when the database cannot be reached, and exits 1', { timeout: CLI_TEST_TIMEOUT_MS }, async (t) => {
    const served = await runToEnd(t, ['serve', '--port', '0', '--database', 'postgres://nobody:secret@127.0.0.1:1/none']);
    expect(served.code).toBe(1);
    expect(served.stderr.trim().split('\n')).toHaveLength(1);
    expect(served.stderr).toMatch(/cannot be reached/);
    expect(served.stderr).not.toContain('secret');
  });
});

describe.skipIf(skip !== null)('a PostgreSQL world whose database goes away', () => {
  it('answers 503 unavailable with Retry-After, applies nothing, and serves again once it is back', { timeout: CLI_TEST_TIMEOUT_MS }, async (t) => {
    const server = await startThrowawayPostgres();
    t.onTestFinished(() => server.stop());
    const running = await startServer(t, server.url);
    const payer = await agent(running.url, 'payer', { usd: '5.00' });
    await agent(running.url, 'payee');
    // A keyed request before: the claims' connection is open (and idle) when the database goes.
    const before = await call(running.url, 'POST', '/v1/wallet/send', { key: payer.key, body: { to: 'payee', amount: '1.00', asset: 'usd' }, idempotencyKey: 'before-away' });
    expect(before.status).toBe(201);
    server.halt();
    expect((await call(running.url, 'POST', '/v1/wallet/send', { key: payer.key, body: { to: 'payee', amount: '1.00', asset: 'usd' }, idempotencyKey: 'while-away' })).status).toBe(503);
    const refused = await call(running.url, 'POST', '/v1/wallet/send', { key: payer.key, body: { to: 'payee', amount: '1.00', asset: 'usd' } });
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('unavailable');
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    server.restart();
    let balance = await call(running.url, 'GET', '/v1/wallet/balance', { key: payer.key });
    for (let tries = 0; balance.status !== 200 && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      balance = await call(running.url, 'GET', '/v1/wallet/balance', { key: payer.key });
    }
    expect(balance.body.fiat.usd).toBe('4.00');
    const sent = await call(running.url, 'POST', '/v1/wallet/send', { key: payer.key, body: { to: 'payee', amount: '1.00', asset: 'usd' } });
    expect(sent.status).toBe(201);
    // A keyed request claims its key across processes on a connection of its own: that one comes back too.
    const keyed = await call(running.url, 'POST', '/v1/wallet/send', { key: payer.key, body: { to: 'payee', amount: '1.00', asset: 'usd' }, idempotencyKey: 'after-restart' });
    expect(keyed.status).toBe(201);
  });
});

describe.skipIf(skip !== null)('events of one process on the other', () => {
  it('streams an event committed through one process to a dashboard stream open on the other', { timeout: CLI_TEST_TIMEOUT_MS }, async (t) => {
    const database = await freshDatabase();
    const [a, b] = await Promise.all([startServer(t, database), startServer(t, database)]);
    const controller = new AbortController();
    t.onTestFinished(() => controller.abort());
    const stream = await fetch(`${b.url}/_dashboard/events/stream?after=0`, { signal: controller.signal });
    expect(stream.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = stream.body!.getReader();
    await agent(a.url, 'streamed');
    let text = '';
    while (!text.includes('agent.created')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(text).toContain('agent.created');
    expect(text).toMatch(/^id: 1$/m);
  });
});
