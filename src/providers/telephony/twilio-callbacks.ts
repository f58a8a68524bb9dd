import type { CarrierEdge, TelephonyReports } from '../../core/ports/telephony.js';
import { ApiError } from '../../core/shared/api-error.js';
import { verifyTwilioSignature } from './twilio-signature.js';

/** The path prefix Twilio's callbacks arrive under. */
export const TWILIO_EDGE_PREFIX = '/_twilio';

/** Twilio's edge: the telephony port's {@link CarrierEdge} (providers do not import the runtime). */
export type TwilioEdge = CarrierEdge;

/** Twilio's call statuses that end a call `failed`, with the reason the API shows. */
const CALL_FAILURES: Record<string, string> = { busy: 'busy', 'no-answer': 'no_answer', failed: 'carrier_failed', canceled: 'canceled' };

/**
 * The inbound edge of {@link TwilioTelephony}: `POST /_twilio/sms/status` (MessageStatus),
 * `POST /_twilio/call/status` (CallStatus, CallDuration) and `POST /_twilio/sms/inbound` (an SMS
 * to one of the service's numbers). Each request's `X-Twilio-Signature` is checked against the
 * public URL (`callbackBaseUrl` + path and query) and the form parameters before anything changes;
 * a request that fails the check is answered 401 and ignored.
 */
export function twilioCallbackEdge(options: { authToken: string; callbackBaseUrl: string; reports: TelephonyReports }): TwilioEdge {
  const base = options.callbackBaseUrl.replace(/\/$/, '');
  return {
    kind: 'http',
    prefix: TWILIO_EDGE_PREFIX,
    async fetch(request) {
      const url = new URL(request.url);
      const route = url.pathname.slice(TWILIO_EDGE_PREFIX.length);
      if (!['/sms/status', '/call/status', '/sms/inbound'].includes(route)) return error(404, 'not_found', 'no such callback');
      if (request.method !== 'POST') return error(405, 'method_not_allowed', 'callbacks are POST', { allow: 'POST' });
      const form = new URLSearchParams(await request.text());
      const publicUrl = `${base}${url.pathname}${url.search}`;
      if (!verifyTwilioSignature(options.authToken, publicUrl, form, request.headers.get('x-twilio-signature'))) {
        return error(401, 'unauthorized', 'X-Twilio-Signature does not match this request');
      }
      try {
        if (route === '/sms/status') await smsStatus(options.reports, form);
        else if (route === '/call/status') await callStatus(options.reports, form);
        else {
          const sid = form.get('MessageSid') ?? form.get('SmsSid');
          await options.reports.inboundSms({ from: form.get('From') ?? '', to: form.get('To') ?? '', body: form.get('Body') ?? '', ...(sid ? { carrier_id: sid } : {}) });
          return new Response('<?xml version="1.0" encoding="UTF-8"?><Response/>', { status: 200, headers: { 'content-type': 'text/xml' } });
        }
      } catch (failure) {
        if (failure instanceof ApiError) return error(failure.status, failure.code, failure.message);
        throw failure;
      }
      return new Response(null, { status: 204 });
    },
  };
}

async function smsStatus(reports: TelephonyReports, form: URLSearchParams): Promise<void> {
  const sid = form.get('MessageSid') ?? form.get('SmsSid');
  const status = form.get('MessageStatus') ?? form.get('SmsStatus');
  if (!sid || !status) return;
  if (status === 'sent') await reports.smsStatus(sid, 'sent', null);
  else if (status === 'delivered' || status === 'read') await reports.smsStatus(sid, 'delivered', null);
  else if (status === 'failed' || status === 'undelivered') await reports.smsStatus(sid, 'failed', form.get('ErrorCode') || '30008');
}

async function callStatus(reports: TelephonyReports, form: URLSearchParams): Promise<void> {
  const sid = form.get('CallSid');
  const status = form.get('CallStatus');
  if (!sid || !status) return;
  if (status === 'ringing' || status === 'in-progress') await reports.callStatus(sid, status, {});
  else if (status === 'completed') {
    const duration = Number(form.get('CallDuration'));
    await reports.callStatus(sid, 'completed', Number.isInteger(duration) && duration >= 0 ? { duration_seconds: duration } : {});
  } else if (CALL_FAILURES[status]) await reports.callStatus(sid, 'failed', { failure_reason: CALL_FAILURES[status] });
}

function error(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error: { code, message } }), { status, headers: { 'content-type': 'application/json', ...headers } });
}
