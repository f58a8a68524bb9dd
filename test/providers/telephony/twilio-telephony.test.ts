import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FetchHttpClient, TwilioTelephony, createRuntime, serve, twilioSignature, type AgentClient, type Runtime, type RunningServer } from '../../../src/index.js';

const SID = 'ACtest0000000000000000000000000000';
const TOKEN = 'twilio-auth-token';
const PUBLIC = 'https://agents.example.test';
const OUTSIDE = '+14155552671';
/** A number the fake Twilio refuses with 21211, as Twilio does for numbers it cannot reach. */
const REFUSED = '+14155550100';

/** What the fake Twilio REST API received. */
interface TwilioCall {
  path: string;
  authorization: string;
  form: URLSearchParams;
}

/**
 * A local stand-in for Twilio's REST API (2010-04-01) on 127.0.0.1: Messages.json and Calls.json
 * answer 201 with a resource `sid`, 401 (code 20003) without the account's Basic auth, and 400
 * (code 21211) for one refused number, in Twilio's JSON shapes.
 */
let twilio: { url: string; received: TwilioCall[]; server: Server; next: number; beforeAnswer?: (sid: string) => Promise<void> };
beforeAll(async () => {
  const received: TwilioCall[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const authorization = req.headers.authorization ?? '';
      received.push({ path: req.url ?? '', authorization, form });
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (authorization !== `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`) return send(401, { code: 20003, message: 'Authenticate', status: 401 });
      if (form.get('To') === REFUSED) return send(400, { code: 21211, message: "The 'To' number +15005550001 is not a valid phone number.", status: 400 });
      const kind = req.url?.endsWith('/Messages.json') ? 'SM' : req.url?.endsWith('/Calls.json') ? 'CA' : undefined;
      if (!kind || !req.url?.startsWith(`/2010-04-01/Accounts/${SID}/`)) return send(404, { code: 20404, message: 'not found', status: 404 });
      const sid = `${kind}${String(++twilio.next).padStart(32, '0')}`;
      const answer = () => send(201, { sid, account_sid: SID, to: form.get('To'), from: form.get('From'), status: 'queued' });
      if (twilio.beforeAnswer) void twilio.beforeAnswer(sid).then(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  twilio = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, server, next: 0 };
});
afterAll(() => new Promise<void>((resolve) => twilio.server.close(() => resolve())));

describe('TwilioTelephony', () => {
  let runtime: Runtime;
  let server: RunningServer;
  let alice: AgentClient;
  let aliceNumber: string;

  beforeEach(async () => {
    twilio.received.length = 0;
    twilio.next = 0;
    delete twilio.beforeAnswer;
    const httpClient = new FetchHttpClient();
    runtime = await createRuntime({ providers: { httpClient, telephony: new TwilioTelephony({ accountSid: SID, authToken: TOKEN, callbackBaseUrl: PUBLIC, apiBaseUrl: twilio.url, httpClient }) } });
    server = await serve(runtime, { port: 0 });
    const created = await runtime.simClient().createAgent({ name: 'alice' });
    alice = runtime.agent(created.api_key);
    aliceNumber = created.phone_number!;
  });
  afterEach(async () => {
    await server.close();
    await runtime.close();
  });

  /** Twilio calling the service back: a signed form POST to `/_twilio/...` (signed over the public URL). */
  function callback(path: string, params: Record<string, string>, signature?: string): Promise<Response> {
    const form = new URLSearchParams(params);
    return fetch(`${server.url}/_twilio${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature ?? twilioSignature(TOKEN, `${PUBLIC}/_twilio${path}`, form) },
      body: form,
    });
  }

  it('creates a Message resource with Basic auth and a StatusCallback, then follows the signed status callbacks', async () => {
    const sent = await alice.phone.sendSms({ to: OUTSIDE, body: 'Hello via Twilio' });
    expect(sent.status).toBe('queued');
    expect(twilio.received).toHaveLength(1);
    const request = twilio.received[0]!;
    expect(request.path).toBe(`/2010-04-01/Accounts/${SID}/Messages.json`);
    expect(Object.fromEntries(request.form)).toEqual({ To: OUTSIDE, From: aliceNumber, Body: 'Hello via Twilio', StatusCallback: `${PUBLIC}/_twilio/sms/status` });
    const sid = 'SM00000000000000000000000000000001';
    expect((await callback('/sms/status', { MessageSid: sid, MessageStatus: 'sent', AccountSid: SID })).status).toBe(204);
    expect((await alice.phone.getSms(sent.message_id)).status).toBe('sent');
    // A late `sending` or a repeated `sent` never moves it back.
    await callback('/sms/status', { MessageSid: sid, MessageStatus: 'sending' });
    await callback('/sms/status', { MessageSid: sid, MessageStatus: 'delivered' });
    await callback('/sms/status', { MessageSid: sid, MessageStatus: 'sent' });
    expect((await alice.phone.getSms(sent.message_id)).status).toBe('delivered');
    const changes = (await runtime.simClient().listEvents({ limit: 100 })).events.filter((event) => event.type === 'sms.status_changed');
    expect(changes.map((event) => event.data.status)).toEqual(['queued', 'sent', 'delivered']);
  });

  it('fails a message Twilio reports undelivered with its error code, and one Twilio refuses at once', async () => {
    const sent = await alice.phone.sendSms({ to: OUTSIDE, body: 'x' });
    await callback('/sms/status', { MessageSid: 'SM00000000000000000000000000000001', MessageStatus: 'undelivered', ErrorCode: '30005' });
    expect(await alice.phone.getSms(sent.message_id)).toMatchObject({ status: 'failed', error_code: '30005' });
    const refused = await alice.phone.sendSms({ to: REFUSED, body: 'x' });
    expect(refused).toMatchObject({ status: 'failed', error_code: '21211' });
    const call = await alice.phone.placeCall({ to: REFUSED, script: 'hi' });
    expect(await alice.phone.getCall(call.call_id)).toMatchObject({ status: 'failed', failure_reason: 'carrier_error_21211' });
  });

  it('refuses callbacks whose X-Twilio-Signature does not match, changing nothing', async () => {
    const sent = await alice.phone.sendSms({ to: OUTSIDE, body: 'x' });
    const params = { MessageSid: 'SM00000000000000000000000000000001', MessageStatus: 'delivered' };
    expect((await callback('/sms/status', params, 'bm90IGEgc2lnbmF0dXJl')).status).toBe(401);
    const wrongKey = twilioSignature('another-token', `${PUBLIC}/_twilio/sms/status`, new URLSearchParams(params));
    expect((await callback('/sms/status', params, wrongKey)).status).toBe(401);
    const tampered = twilioSignature(TOKEN, `${PUBLIC}/_twilio/sms/status`, new URLSearchParams({ ...params, MessageStatus: 'sent' }));
    expect((await callback('/sms/status', params, tampered)).status).toBe(401);
    expect((await fetch(`${server.url}/_twilio/sms/status`, { method: 'POST', body: new URLSearchParams(params) })).status).toBe(401);
    expect((await alice.phone.getSms(sent.message_id)).status).toBe('queued');
    expect((await fetch(`${server.url}/_twilio/sms/status`)).status).toBe(405);
    expect((await callback('/elsewhere', params)).status).toBe(404);
  });

  it('applies status callbacks that arrive before Twilio has answered the send', async () => {
    twilio.beforeAnswer = async (sid) => {
      if (sid.startsWith('SM')) {
        expect((await callback('/sms/status', { MessageSid: sid, MessageStatus: 'sent' })).status).toBe(204);
        expect((await callback('/sms/status', { MessageSid: sid, MessageStatus: 'delivered' })).status).toBe(204);
      } else {
        expect((await callback('/call/status', { CallSid: sid, CallStatus: 'ringing' })).status).toBe(204);
      }
    };
    const sent = await alice.phone.sendSms({ to: OUTSIDE, body: 'Quick one' });
    expect(sent.status).toBe('delivered');
    const changes = (await runtime.simClient().listEvents({ limit: 100 })).events.filter((event) => event.type === 'sms.status_changed');
    expect(changes.map((event) => event.data.status)).toEqual(['queued', 'sent', 'delivered']);
    const call = await alice.phone.placeCall({ to: OUTSIDE, script: 'hi' });
    expect((await alice.phone.getCall(call.call_id)).status).toBe('ringing');
  });

  it('lands an inbound SMS once when Twilio retries its callback', async () => {
    const params = { MessageSid: 'SMretried', From: OUTSIDE, To: aliceNumber, Body: 'Are you there?' };
    expect((await callback('/sms/inbound', params)).status).toBe(200);
    expect((await callback('/sms/inbound', params)).status).toBe(200);
    expect((await alice.phone.listMessages()).messages.map((message) => message.body)).toEqual(['Are you there?']);
  });

  it('takes inbound SMS for the agent numbers and answers empty TwiML', async () => {
    const response = await callback('/sms/inbound', { MessageSid: 'SMin', From: OUTSIDE, To: aliceNumber, Body: 'Reply from a handset' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/xml/);
    expect(await response.text()).toContain('<Response/>');
    expect((await alice.phone.listMessages()).messages).toMatchObject([{ from: OUTSIDE, to: aliceNumber, body: 'Reply from a handset' }]);
    expect((await callback('/sms/inbound', { From: OUTSIDE, To: '+14155550000', Body: 'x' })).status).toBe(404);
  });

  it('creates a Call resource (a script as inline TwiML) and follows its status callbacks', async () => {
    const placed = await alice.phone.placeCall({ to: OUTSIDE, script: 'Your order <42> & more has shipped.' });
    const request = twilio.received[0]!;
    expect(request.path).toBe(`/2010-04-01/Accounts/${SID}/Calls.json`);
    expect(request.form.get('Twiml')).toBe('<Response><Say>Your order &lt;42&gt; &amp; more has shipped.</Say></Response>');
    expect(request.form.get('StatusCallback')).toBe(`${PUBLIC}/_twilio/call/status`);
    expect(request.form.getAll('StatusCallbackEvent')).toEqual(['initiated', 'ringing', 'answered', 'completed']);
    const sid = 'CA00000000000000000000000000000001';
    await callback('/call/status', { CallSid: sid, CallStatus: 'ringing' });
    await callback('/call/status', { CallSid: sid, CallStatus: 'in-progress' });
    await callback('/call/status', { CallSid: sid, CallStatus: 'completed', CallDuration: '12' });
    expect(await alice.phone.getCall(placed.call_id)).toMatchObject({ status: 'completed', duration_seconds: 12, transcript: [{ text: 'Your order <42> & more has shipped.' }] });

    const url = await alice.phone.placeCall({ to: OUTSIDE, twiml_url: 'https://flows.example.test/answer.xml' });
    expect(twilio.received[1]!.form.get('Url')).toBe('https://flows.example.test/answer.xml');
    await callback('/call/status', { CallSid: 'CA00000000000000000000000000000002', CallStatus: 'busy' });
    expect(await alice.phone.getCall(url.call_id)).toMatchObject({ status: 'failed', failure_reason: 'busy', duration_seconds: 0 });
  });
});
