import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Call } from '../../src/index.js';
import { startTwimlServer, type TwimlServer } from '../support/phone-twiml-server.js';
import { ISO_MS_Z, TRANSPORTS_AND_POSTGRES, bearer, expectApiError, expectErrorResponse, jsonInit, openWorld, type TestAgent, type World } from '../support/transports.js';

const OUTSIDE = '+14155552671';
const at = (seconds: number) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + seconds * 1000).toISOString();

let twiml: TwimlServer;
beforeAll(async () => {
  twiml = await startTwimlServer({
    '/hello': { body: '<?xml version="1.0"?><Response><Say>Hello there, this is Alice.</Say><Pause length="3"/><Play>https://x.test/beep.mp3</Play><Say>Goodbye</Say><Hangup/><Say>never said</Say></Response>' },
    '/first': { body: '<Response><Say>One moment</Say><Redirect method="GET">/second?step=2</Redirect></Response>' },
    '/second': { body: '<Response><Say>Second document</Say></Response>' },
    '/loop': { body: '<Response><Pause length="1"/><Redirect>/loop</Redirect></Response>' },
    '/reject': { body: '<Response><Reject reason="busy"/></Response>' },
    '/broken': { status: 500, body: 'oops', contentType: 'text/plain' },
    '/html': { body: '<html><body>Not TwiML</body></html>', contentType: 'text/html' },
    '/long': { body: '<Response><Say>Intro</Say><Pause length="10"/><Say>Later line</Say></Response>' },
    // 90 Says looped 100 times: 9,000 lines of 1 s each, then again and again.
    '/endless': { body: `<Response>${'<Say loop="100">Still here</Say>'.repeat(90)}<Redirect>/endless</Redirect></Response>` },
  });
});
afterAll(() => twiml.close());

describe.each(TRANSPORTS_AND_POSTGRES)('phone: calls (%s)', (kind) => {
  let world: World;
  let alice: TestAgent;
  let bob: TestAgent;

  beforeEach(async () => {
    twiml.requests.length = 0;
    world = await openWorld(kind);
    alice = await world.newAgent('alice');
    bob = await world.newAgent('bob');
  });
  afterEach(() => world.close());

  const advance = (seconds: number) => world.sim.advanceClock({ seconds });
  const statuses = async (callId: string) =>
    (await world.sim.listEvents({ limit: 1000 })).events.filter((event) => event.type === 'call.status_changed' && event.data.call_id === callId).map((event) => event.data as unknown as Call);

  it('answers 201 initiated, rings after 1 s, is answered 4 s later and completes when the script is spoken', async () => {
    const response = await world.raw('/v1/phone/calls', jsonInit('POST', { to: OUTSIDE, script: 'Hello Bob, your parcel arrives tomorrow morning.' }, bearer(alice.api_key)));
    expect(response.status).toBe(201);
    const placed = (await response.json()) as Record<string, string>;
    expect(Object.keys(placed).sort()).toEqual(['call_id', 'created_at', 'from', 'status', 'to']);
    expect(placed).toMatchObject({ to: OUTSIDE, from: alice.phone_number, status: 'initiated' });
    expect(placed.call_id).toMatch(/^call_/);
    expect(placed.created_at).toMatch(ISO_MS_Z);
    const initial = await alice.client.phone.getCall(placed.call_id!);
    expect(initial).toEqual({ ...placed, duration_seconds: null, ended_at: null, failure_reason: null, transcript: [] });
    await advance(1);
    expect((await alice.client.phone.getCall(placed.call_id!)).status).toBe('ringing');
    await advance(4);
    expect(await alice.client.phone.getCall(placed.call_id!)).toMatchObject({ status: 'in-progress', transcript: [{ at: at(5), text: 'Hello Bob, your parcel arrives tomorrow morning.' }] });
    // 7 words at 150 wpm: ceil(7 / 2.5) = 3 s.
    await advance(2.999);
    expect((await alice.client.phone.getCall(placed.call_id!)).status).toBe('in-progress');
    await advance(0.001);
    const done = await alice.client.phone.getCall(placed.call_id!);
    expect(done).toMatchObject({ status: 'completed', duration_seconds: 3, ended_at: at(8), failure_reason: null });
    const changes = await statuses(placed.call_id!);
    expect(changes.map((change) => change.status)).toEqual(['initiated', 'ringing', 'in-progress', 'completed']);
    expect(changes[3]).toEqual(done);
  });

  it("fetches TwiML when answered (POST with Twilio's fields) and runs Say, Pause, Play and Hangup", async () => {
    const placed = await alice.client.phone.placeCall({ to: OUTSIDE, twiml_url: `${twiml.url}/hello` });
    await advance(4.999);
    expect(twiml.requests).toEqual([]);
    await advance(0.001);
    expect(twiml.requests).toEqual([
      {
        method: 'POST',
        path: '/hello',
        query: {},
        form: { CallSid: placed.call_id, From: alice.phone_number, To: OUTSIDE, CallStatus: 'in-progress', Direction: 'outbound-api' },
        contentType: 'application/x-www-form-urlencoded',
      },
    ]);
    await advance(60);
    // "Hello there, this is Alice." 5 words: 2 s; pause 3 s; play 0 s; "Goodbye" 1 s; hang up.
    expect(await alice.client.phone.getCall(placed.call_id)).toMatchObject({
      status: 'completed',
      duration_seconds: 6,
      ended_at: at(11),
      transcript: [
        { at: at(5), text: 'Hello there, this is Alice.' },
        { at: at(10), text: 'Goodbye' },
      ],
    });
  });

  it('shows a transcript line only once it has been said', async () => {
    const placed = await alice.client.phone.placeCall({ to: OUTSIDE, twiml_url: `${twiml.url}/long` });
    await advance(6);
    expect((await alice.client.phone.getCall(placed.call_id)).transcript).toEqual([{ at: at(5), text: 'Intro' }]);
    await advance(10);
    expect((await alice.client.phone.getCall(placed.call_id)).transcript.map((line) => line.text)).toEqual(['Intro', 'Later line']);
  });

  it('follows a Redirect, relative and by GET with the fields in the query', async () => {
    const placed = await alice.client.phone.placeCall({ to: OUTSIDE, twiml_url: `${twiml.url}/first` });
    await advance(30);
    expect(twiml.requests.map((request) => [request.method, request.path])).toEqual([
      ['POST', '/first'],
      ['GET', '/second'],
    ]);
    expect(twiml.requests[1]!.query).toMatchObject({ step: '2', CallSid: placed.call_id, CallStatus: 'in-progress' });
    expect(await alice.client.phone.getCall(placed.call_id)).toMatchObject({
      status: 'completed',
      // Two words each: 1 s apiece.
      transcript: [
        { at: at(5), text: 'One moment' },
        { at: at(6), text: 'Second document' },
      ],
      duration_seconds: 2,
    });
  });

  it('stops a Redirect loop after 10 redirects and completes the call', async () => {
    const placed = await alice.client.phone.placeCall({ to: OUTSIDE, twiml_url: `${twiml.url}/loop` });
    await advance(3600);
    expect(twiml.requests).toHaveLength(11);
    expect(await alice.client.phone.getCall(placed.call_id)).toMatchObject({ status: 'completed', duration_seconds: 11 });
  });

  it("ends a call at Twilio's 4-hour time limit, however much its documents still say", async () => {
    const placed = await alice.client.phone.placeCall({ to: OUTSIDE, twiml_url: `${twiml.url}/endless` });
    await advance(6 * 3600);
    const call = await alice.client.phone.getCall(placed.call_id);
    expect(call).toMatchObject({ status: 'completed', duration_seconds: 14_400 });
    // Each line takes 1 s: the first document speaks 9,000, the second 5,400 before the limit.
    expect(twiml.requests).toHaveLength(2);
    expect(call.transcript).toHaveLength(14_400);
    expect(call.transcript.at(-1)).toEqual({ at: at(5 + 14_399), text: 'Still here' });
  });

  it('fails the call with twiml_fetch_failed or twiml_invalid when the document cannot be had or read', async () => {
    const broken = await alice.client.phone.placeCall({ to: OUTSIDE, twiml_url: `${twiml.url}/broken` });
    const missing = await alice.client.phone.placeCall({ to: OUTSIDE, twiml_url: `${twiml.url}/nothing-here` });
    const refused = await alice.client.phone.placeCall({ to: OUTSIDE, twiml_url: 'http://127.0.0.1:1/twiml' });
    const html = await alice.client.phone.placeCall({ to: OUTSIDE, twiml_url: `${twiml.url}/html` });
    await advance(10);
    for (const call of [broken, missing, refused]) {
      expect(await alice.client.phone.getCall(call.call_id)).toMatchObject({ status: 'failed', failure_reason: 'twiml_fetch_failed', duration_seconds: 0, ended_at: at(5) });
    }
    expect(await alice.client.phone.getCall(html.call_id)).toMatchObject({ status: 'failed', failure_reason: 'twiml_invalid' });
  });

  it('ends a call that hits Reject as failed with its reason', async () => {
    const placed = await alice.client.phone.placeCall({ to: OUTSIDE, twiml_url: `${twiml.url}/reject` });
    await advance(10);
    expect(await alice.client.phone.getCall(placed.call_id)).toMatchObject({ status: 'failed', failure_reason: 'busy', transcript: [] });
  });

  it("keeps Twilio's test numbers: 0002 busy, 0004 no answer, 0001 refused", async () => {
    const busy = await alice.client.phone.placeCall({ to: '+15005550002', script: 'hi' });
    const silent = await alice.client.phone.placeCall({ to: '+15005550004', script: 'hi' });
    await expectApiError(alice.client.phone.placeCall({ to: '+15005550001', script: 'hi' }), 400, 'invalid_recipient', 'to');
    await advance(1);
    expect((await alice.client.phone.getCall(busy.call_id)).status).toBe('ringing');
    await advance(4);
    expect(await alice.client.phone.getCall(busy.call_id)).toMatchObject({ status: 'failed', failure_reason: 'busy', duration_seconds: 0, ended_at: at(5), transcript: [] });
    expect(await alice.client.phone.getCall(silent.call_id)).toMatchObject({ status: 'failed', failure_reason: 'no_answer' });
    expect((await statuses(busy.call_id)).map((change) => change.status)).toEqual(['initiated', 'ringing', 'failed']);
  });

  it('refuses bad input with the DECISIONS.md status, code and param and changes nothing', async () => {
    const before = (await world.sim.listEvents({ limit: 1000 })).events.length;
    const cases: Array<[unknown, string, string]> = [
      [{ to: OUTSIDE }, 'invalid_request', 'script'],
      [{ to: OUTSIDE, script: 'hi', twiml_url: `${twiml.url}/hello` }, 'invalid_request', 'script'],
      [{ to: OUTSIDE, script: '' }, 'invalid_request', 'script'],
      [{ to: OUTSIDE, script: 'x'.repeat(4097) }, 'invalid_request', 'script'],
      [{ to: OUTSIDE, twiml_url: 'ftp://example.com/flow.xml' }, 'invalid_request', 'twiml_url'],
      [{ to: OUTSIDE, twiml_url: 'not a url' }, 'invalid_request', 'twiml_url'],
      [{ to: 'nobody', script: 'hi' }, 'invalid_recipient', 'to'],
      [{ to: alice.phone_number, script: 'hi' }, 'invalid_recipient', 'to'],
      [{ script: 'hi' }, 'invalid_request', 'to'],
    ];
    for (const [body, code, param] of cases) {
      await expectErrorResponse(await world.raw('/v1/phone/calls', jsonInit('POST', body, bearer(alice.api_key))), 400, code as 'invalid_request', param);
    }
    expect((await alice.client.phone.listCalls()).calls).toEqual([]);
    expect((await world.sim.listEvents({ limit: 1000 })).events).toHaveLength(before);
  });

  it("answers 404 for unknown calls and other agents' calls, and lists only the agent's own, newest first", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await alice.client.phone.placeCall({ to: OUTSIDE, script: `call ${i}` })).call_id);
    await expectApiError(bob.client.phone.getCall(ids[0]!), 404, 'not_found');
    await expectApiError(alice.client.phone.getCall('call_unknown'), 404, 'not_found');
    expect((await bob.client.phone.listCalls()).calls).toEqual([]);
    const first = await alice.client.phone.listCalls({ limit: 2 });
    const second = await alice.client.phone.listCalls({ limit: 2, cursor: first.next_cursor! });
    expect([...first.calls, ...second.calls].map((call) => call.call_id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(second.next_cursor).toBeNull();
    expect(first.calls[0]).toEqual(await alice.client.phone.getCall(ids[2]!));
  });

  it('replays a repeat with the same Idempotency-Key and calls once', async () => {
    const first = await alice.client.phone.placeCall({ to: OUTSIDE, script: 'once' }, { idempotencyKey: 'call-1' });
    const again = await alice.client.phone.placeCall({ to: OUTSIDE, script: 'once' }, { idempotencyKey: 'call-1' });
    expect(again).toEqual(first);
    expect((await alice.client.phone.listCalls()).calls).toHaveLength(1);
  });
});
