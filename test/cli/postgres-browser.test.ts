// Browser sessions and quotas in a world that two server processes serve on one PostgreSQL
// database, checked through HTTP only: a session lives in the process that opened it, calls on it
// work through either process, the per-agent limit counts both, and a killed owner's sessions end
// `lost`.
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { freshDatabase, postgresSkipReason } from '../support/postgres.js';
import { CLI_TEST_TIMEOUT_MS, killAll } from './cli-process.js';
import { call, createAgent, startDatabaseServer, type DatabaseServer } from './database-servers.js';
import { ensureBuilt } from './ensure-built.js';

const skip = postgresSkipReason();
if (skip) console.log(`skipping the PostgreSQL browser tests: ${skip}`);

/** DECISIONS.md: a killed owner's sessions end `lost` within 20 s. */
const LOST_WITHIN_MS = 20_000;

beforeAll(async () => {
  if (!skip) await ensureBuilt();
}, CLI_TEST_TIMEOUT_MS);

afterAll(() => killAll());

/** A server whose browser sessions are simulated (no Chromium needed). */
function startServer(t: TestContext, database: string, extra: string[] = []): Promise<DatabaseServer> {
  return startDatabaseServer(t, database, ['--browser', 'simulated', ...extra]);
}

const agent = (url: string, name: string) => createAgent(url, name);

async function openSession(url: string, key: string) {
  const created = await call(url, 'POST', '/v1/compute/browser/sessions', { key, body: {} });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { session_id: string; ws_endpoint: string };
}

const sessionPath = (id: string) => `/v1/compute/browser/sessions/${id}`;

describe.skipIf(skip !== null)('browser sessions in a world two processes serve', () => {
  it('live in the process that opened them; show, screenshot and DELETE work through the other', { timeout: CLI_TEST_TIMEOUT_MS }, async (t) => {
    const database = await freshDatabase();
    const [a, b] = await Promise.all([startServer(t, database), startServer(t, database)]);
    const browsing = await agent(a.url, 'browsing');
    const session = await openSession(a.url, browsing.key);
    expect(session.ws_endpoint.startsWith(`${a.url.replace('http://', 'ws://')}/`)).toBe(true);

    const shown = await call(b.url, 'GET', sessionPath(session.session_id), { key: browsing.key });
    expect(shown.status).toBe(200);
    expect(shown.body.status).toBe('open');
    expect(shown.body.ws_endpoint).toBe(session.ws_endpoint);
    const listed = await call(b.url, 'GET', '/v1/compute/browser/sessions', { key: browsing.key });
    expect(listed.body.sessions.map((s: { ws_endpoint: string }) => s.ws_endpoint)).toEqual([session.ws_endpoint]);

    const shot = await call(b.url, 'GET', `${sessionPath(session.session_id)}/screenshot`, { key: browsing.key });
    expect(shot.status, JSON.stringify(shot.body)).toBe(200);
    expect(Buffer.from(shot.body.data, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect([shot.body.width, shot.body.height]).toEqual([1280, 720]);

    // Another agent's session is not found through either process, forwarded or not.
    const other = await agent(b.url, 'other');
    expect((await call(b.url, 'GET', sessionPath(session.session_id), { key: other.key })).status).toBe(404);
    expect((await call(b.url, 'DELETE', sessionPath(session.session_id), { key: other.key })).status).toBe(404);

    expect((await call(b.url, 'DELETE', sessionPath(session.session_id), { key: browsing.key })).status).toBe(204);
    const ended = await call(a.url, 'GET', sessionPath(session.session_id), { key: browsing.key });
    expect(ended.body).toMatchObject({ status: 'terminated', terminated_reason: 'closed' });
    expect((await call(b.url, 'GET', `${sessionPath(session.session_id)}/screenshot`, { key: browsing.key })).status).toBe(404);
    const terminated = (await call(b.url, 'GET', '/_sim/events?limit=100')).body.events.filter((event: { type: string }) => event.type === 'browser.session.terminated');
    expect(terminated).toHaveLength(1);
  });

  it('counts the per-agent limit across processes: 8 concurrent opens over both give exactly 5', { timeout: CLI_TEST_TIMEOUT_MS }, async (t) => {
    const database = await freshDatabase();
    const [a, b] = await Promise.all([startServer(t, database), startServer(t, database)]);
    const busy = await agent(a.url, 'busy');
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => call(i % 2 === 0 ? a.url : b.url, 'POST', '/v1/compute/browser/sessions', { key: busy.key, body: {} })));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(5);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused).toHaveLength(3);
    for (const answer of refused) {
      expect(answer.body.error.code).toBe('rate_limited');
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Ending one (through the process that does not run it) frees one slot, on either process.
    const opened = answers.filter((answer) => answer.status === 201).map((answer) => answer.body as { session_id: string; ws_endpoint: string });
    const onA = opened.find((session) => session.ws_endpoint.startsWith(a.url.replace('http://', 'ws://')))!;
    expect((await call(b.url, 'DELETE', sessionPath(onA.session_id), { key: busy.key })).status).toBe(204);
    expect((await call(b.url, 'POST', '/v1/compute/browser/sessions', { key: busy.key, body: {} })).status).toBe(201);
    expect((await call(a.url, 'POST', '/v1/compute/browser/sessions', { key: busy.key, body: {} })).status).toBe(429);
  });

  it('ends the sessions of a killed process with terminated_reason "lost", and frees their slots', { timeout: CLI_TEST_TIMEOUT_MS }, async (t) => {
    const database = await freshDatabase();
    const [a, b] = await Promise.all([startServer(t, database), startServer(t, database)]);
    const owner = await agent(b.url, 'owner');
    const sessions = [await openSession(a.url, owner.key), await openSession(a.url, owner.key)];
    const kept = await openSession(b.url, owner.key);
    a.kill();
    await a.closed;
    // Nobody calls on the sessions: B's sweep alone must find them.
    const killedAt = Date.now();
    const deadline = killedAt + LOST_WITHIN_MS;
    let shown: Array<{ status: string; terminated_reason: string | null }> = [];
    while (Date.now() < deadline) {
      const listed = await call(b.url, 'GET', '/v1/compute/browser/sessions', { key: owner.key });
      shown = listed.body.sessions.filter((s: { session_id: string }) => s.session_id !== kept.session_id);
      if (shown.every((s) => s.status === 'terminated')) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(shown).toHaveLength(2);
    for (const session of shown) expect(session).toMatchObject({ status: 'terminated', terminated_reason: 'lost' });
    console.log(`sessions of the killed process seen "lost" ${Date.now() - killedAt} ms after the kill`);
    expect((await call(b.url, 'GET', sessionPath(kept.session_id), { key: owner.key })).body.status).toBe('open');
    const lost = (await call(b.url, 'GET', '/_sim/events?limit=200')).body.events.filter(
      (event: { type: string; data: { terminated_reason?: string } }) => event.type === 'browser.session.terminated' && event.data.terminated_reason === 'lost',
    );
    expect(lost.map((event: { data: { session_id: string } }) => event.data.session_id).sort()).toEqual(sessions.map((s) => s.session_id).sort());
    // Their quota slots are free again: 4 more fit beside the one kept.
    for (let i = 0; i < 4; i++) await openSession(b.url, owner.key);
    expect((await call(b.url, 'POST', '/v1/compute/browser/sessions', { key: owner.key, body: {} })).status).toBe(429);
  });

  it('ends a session at once with "lost" when a call on it finds its owner gone', { timeout: CLI_TEST_TIMEOUT_MS }, async (t) => {
    const database = await freshDatabase();
    const [a, b] = await Promise.all([startServer(t, database), startServer(t, database)]);
    const owner = await agent(b.url, 'owner');
    const session = await openSession(a.url, owner.key);
    a.kill();
    await a.closed;
    let shot = await call(b.url, 'GET', `${sessionPath(session.session_id)}/screenshot`, { key: owner.key });
    // The database may notice the dead connection a moment after the kill: until then the owner
    // still holds its claim and the answer is 503 unavailable (never a wrong 200 or a 500).
    for (let tries = 0; shot.status === 503 && tries < 80; tries++) {
      expect(shot.body.error.code).toBe('unavailable');
      expect(shot.headers.get('retry-after')).toMatch(/^\d+$/);
      await new Promise((resolve) => setTimeout(resolve, 250));
      shot = await call(b.url, 'GET', `${sessionPath(session.session_id)}/screenshot`, { key: owner.key });
    }
    expect(shot.status).toBe(404);
    expect((await call(b.url, 'GET', sessionPath(session.session_id), { key: owner.key })).body).toMatchObject({ status: 'terminated', terminated_reason: 'lost' });
    expect((await call(b.url, 'DELETE', sessionPath(session.session_id), { key: owner.key })).status).toBe(204);
  });

  it('keeps the sessions of a running process when another starts, and ends one idle by a clock advance on the other', { timeout: CLI_TEST_TIMEOUT_MS }, async (t) => {
    const database = await freshDatabase();
    const a = await startServer(t, database);
    const owner = await agent(a.url, 'owner');
    const session = await openSession(a.url, owner.key);
    const b = await startServer(t, database);
    expect((await call(b.url, 'GET', sessionPath(session.session_id), { key: owner.key })).body.status).toBe('open');
    expect((await call(b.url, 'GET', `${sessionPath(session.session_id)}/screenshot`, { key: owner.key })).status).toBe(200);

    // Activity through B (the screenshot) counts on A: 59 minutes later the session is still open.
    expect((await call(b.url, 'POST', '/_sim/clock/advance', { body: { seconds: 59 * 60 } })).status).toBe(200);
    expect((await call(b.url, 'GET', sessionPath(session.session_id), { key: owner.key })).body.status).toBe('open');
    // That show was activity too; 61 minutes without any ends it.
    expect((await call(b.url, 'POST', '/_sim/clock/advance', { body: { seconds: 61 * 60 } })).status).toBe(200);
    const ended = await call(b.url, 'GET', sessionPath(session.session_id), { key: owner.key });
    expect(ended.body).toMatchObject({ status: 'terminated', terminated_reason: 'idle' });
    expect((await call(a.url, 'GET', sessionPath(session.session_id), { key: owner.key })).body.terminated_reason).toBe('idle');
  });

  it('puts the advertised URL in ws_endpoint', { timeout: CLI_TEST_TIMEOUT_MS }, async (t) => {
    const database = await freshDatabase();
    const a = await startServer(t, database, ['--advertise-url', 'http://browsers-a.internal:9000']);
    const owner = await agent(a.url, 'owner');
    const session = await openSession(a.url, owner.key);
    expect(session.ws_endpoint).toMatch(/^ws:\/\/browsers-a\.internal:9000\/v1\/compute\/browser\/sessions\//);
  });

  it('refuses a forwarded call without the owner secret', { timeout: CLI_TEST_TIMEOUT_MS }, async (t) => {
    const database = await freshDatabase();
    const a = await startServer(t, database);
    const owner = await agent(a.url, 'owner');
    const session = await openSession(a.url, owner.key);
    const body = { op: 'delete', session_id: session.session_id, agent_id: owner.id };
    expect((await call(a.url, 'POST', '/_peer/browser', { body })).status).toBe(404);
    expect((await call(a.url, 'POST', '/_peer/browser', { body, headers: { authorization: 'Bearer guessed' } })).status).toBe(404);
    expect((await call(a.url, 'GET', sessionPath(session.session_id), { key: owner.key })).body.status).toBe('open');
  });
});
