// Issue 28: an SMS or call whose request deadline passes while the carrier is still being asked
// answers 504 upstream_timeout and keeps nothing of the request (DECISIONS.md's error table): no
// message or call, no event, no money moved, no Idempotency-Key record. Over a real socket, with
// the Twilio provider talking to a local server that holds its answer.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FetchHttpClient, TwilioTelephony, createRuntime, serve, type Runtime, type RunningServer } from '../../src/index.js';

const SID = 'ACtest0000000000000000000000000000';
const OUTSIDE = '+14155552671';
const ADMIN = 'admin-token';
const DEADLINE_MS = 1_000;
const CUT = { error: { code: 'upstream_timeout', message: `the request's outside calls did not finish within its deadline of ${DEADLINE_MS} ms` } };

/** A stand-in for Twilio's REST API that answers 201 at once, or holds every request while `holding`. */
interface SlowTwilio {
  url: string;
  server: Server;
  holding: boolean;
  /** Paths of the requests it received, answered or not. */
  received: string[];
  held: ServerResponse[];
}

async function slowTwilio(): Promise<SlowTwilio> {
  let next = 0;
  const twilio: SlowTwilio = { url: '', server: createServer(), holding: true, received: [], held: [] };
  twilio.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      twilio.received.push(req.url ?? '');
      if (twilio.holding) return void twilio.held.push(res);
      const kind = req.url?.endsWith('/Messages.json') ? 'SM' : 'CA';
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ sid: `${kind}${String(++next).padStart(32, '0')}`, status: 'queued' }));
    });
  });
  await new Promise<void>((resolve) => twilio.server.listen(0, '127.0.0.1', resolve));
  twilio.url = `http://127.0.0.1:${(twilio.server.address() as AddressInfo).port}`;
  return twilio;
}

describe('a carrier still answering when the request deadline passes', () => {
  let twilio: SlowTwilio;
  let runtime: Runtime;
  let server: RunningServer;
  let apiKey: string;

  beforeEach(async () => {
    twilio = await slowTwilio();
  });
  /** Serves a runtime whose carrier is the slow Twilio and whose requests have `deadlineMs`. */
  async function open(deadlineMs = DEADLINE_MS): Promise<void> {
    const httpClient = new FetchHttpClient();
    // The provider's own limit is far past the deadline: only the request deadline cuts the call.
    const telephony = new TwilioTelephony({ accountSid: SID, authToken: 't', callbackBaseUrl: 'https://agents.example.test', apiBaseUrl: twilio.url, httpClient, timeoutMs: 3_600_000 });
    runtime = await createRuntime({ providers: { httpClient, telephony }, requestTimeoutMs: deadlineMs, adminToken: ADMIN });
    server = await serve(runtime, { port: 0 });
    apiKey = (await runtime.createAgent({ name: 'ann' })).api_key;
  }
  afterEach(async () => {
    await server.close();
    await runtime.close();
    twilio.server.closeAllConnections();
    await new Promise<void>((resolve) => twilio.server.close(() => resolve()));
  });

  function call(method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    return fetch(`${server.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  }

  async function eventTypes(): Promise<string[]> {
    const answer = await fetch(`${server.url}/_sim/events?limit=100`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(answer.status).toBe(200);
    return ((await answer.json()) as { events: Array<{ type: string }> }).events.map((event) => event.type);
  }

  async function balances(): Promise<unknown> {
    const answer = await call('GET', '/v1/wallet/balance');
    expect(answer.status).toBe(200);
    return answer.json();
  }

  it('answers an SMS 504 upstream_timeout and keeps no message, no event and no money moved', async () => {
    await open();
    const before = await balances();
    const sent = await call('POST', '/v1/phone/sms', { to: OUTSIDE, body: 'hello' });
    expect(sent.status).toBe(504);
    expect(await sent.json()).toEqual(CUT);
    // The carrier was asked, and had not answered.
    expect(twilio.received).toEqual([`/2010-04-01/Accounts/${SID}/Messages.json`]);
    expect(twilio.held).toHaveLength(1);
    expect(await (await call('GET', '/v1/phone/sms')).json()).toEqual({ messages: [], next_cursor: null });
    expect(await eventTypes()).not.toContain('sms.status_changed');
    expect(await balances()).toEqual(before);
  });

  it('answers a call 504 upstream_timeout and keeps no call and no event', async () => {
    await open();
    const placed = await call('POST', '/v1/phone/calls', { to: OUTSIDE, script: 'hello' });
    expect(placed.status).toBe(504);
    expect(await placed.json()).toEqual(CUT);
    expect(twilio.received).toEqual([`/2010-04-01/Accounts/${SID}/Calls.json`]);
    expect(await (await call('GET', '/v1/phone/calls')).json()).toEqual({ calls: [], next_cursor: null });
    expect(await eventTypes()).not.toContain('call.status_changed');
    // The OpenAPI document states the 504 of both routes.
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, { post: { responses: Record<string, unknown> } }> };
    expect(Object.keys(document.paths['/v1/phone/sms']!.post.responses)).toContain('504');
    expect(Object.keys(document.paths['/v1/phone/calls']!.post.responses)).toContain('504');
  });

  it('stores no answer under the Idempotency-Key: the same request runs again', async () => {
    await open();
    const first = await call('POST', '/v1/phone/sms', { to: OUTSIDE, body: 'hello' }, 'sms-1');
    expect(first.status).toBe(504);
    const again = await call('POST', '/v1/phone/sms', { to: OUTSIDE, body: 'hello' }, 'sms-1');
    expect(again.status).toBe(504);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    // Both reached the carrier: the second was not answered from a stored 504.
    expect(twilio.received).toHaveLength(2);
    expect(await (await call('GET', '/v1/phone/sms')).json()).toEqual({ messages: [], next_cursor: null });
  });

  it('keeps a message and a call the carrier answered within the deadline, and replays them by key', async () => {
    // A deadline no healthy answer comes near: this is the carrier answering in time.
    await open(60_000);
    twilio.holding = false;
    const sent = await call('POST', '/v1/phone/sms', { to: OUTSIDE, body: 'hello' }, 'sms-1');
    expect(sent.status).toBe(201);
    const message = (await sent.json()) as { message_id: string; status: string };
    expect(message.status).toBe('queued');
    const replayed = await call('POST', '/v1/phone/sms', { to: OUTSIDE, body: 'hello' }, 'sms-1');
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(await replayed.json()).toEqual(message);
    const placed = await call('POST', '/v1/phone/calls', { to: OUTSIDE, script: 'hello' }, 'call-1');
    expect(placed.status).toBe(201);
    const body = (await placed.json()) as { call_id: string; status: string };
    expect(body.status).toBe('initiated');
    expect((await call('GET', `/v1/phone/calls/${body.call_id}`)).status).toBe(200);
    expect((await eventTypes()).filter((type) => type === 'sms.status_changed' || type === 'call.status_changed')).toEqual(['sms.status_changed', 'call.status_changed']);
    // The replay did not reach the carrier.
    expect(twilio.received).toHaveLength(2);
  });
});
