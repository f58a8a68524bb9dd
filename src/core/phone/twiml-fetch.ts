import { HttpClient } from '../ports/http-client.js';
import { inject, injectable } from '../shared/di.js';
import { PhoneConfig } from './phone-config.js';
import { parseTwiml, type TwimlVerb } from './twiml.js';

/** What fetching a call-flow document gave: its verbs, or why the call must end. */
export type TwimlFetch = { ok: true; verbs: TwimlVerb[] } | { ok: false; reason: 'twiml_fetch_failed' | 'twiml_invalid' };

/** The call a document is fetched for (Twilio's request parameters). */
export interface TwimlRequestCall {
  call_id: string;
  from: string;
  to: string;
}

/**
 * Fetches TwiML as Twilio does when a call is answered or redirected: an HTTP request through the
 * `HttpClient` port carrying `CallSid`, `From`, `To`, `CallStatus` and `Direction` (form-encoded
 * for POST, in the query string for GET). No answer, or a non-2xx one, is `twiml_fetch_failed`;
 * an answer that is not TwiML is `twiml_invalid`.
 */
@injectable()
export class TwimlFetcher {
  constructor(
    @inject(HttpClient) private readonly http: HttpClient,
    @inject(PhoneConfig) private readonly config: PhoneConfig,
  ) {}

  /** Fetches and reads the document at `url`. */
  async fetch(url: string, method: 'GET' | 'POST', call: TwimlRequestCall): Promise<TwimlFetch> {
    const params = new URLSearchParams({ CallSid: call.call_id, From: call.from, To: call.to, CallStatus: 'in-progress', Direction: 'outbound-api' });
    let body: Uint8Array;
    try {
      let target = url;
      if (method === 'GET') {
        const withQuery = new URL(url);
        for (const [name, value] of params) withQuery.searchParams.append(name, value);
        target = withQuery.toString();
      }
      const answer = await this.http.request({
        method,
        url: target,
        headers: { accept: 'application/xml, text/xml', ...(method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        ...(method === 'POST' ? { body: params.toString() } : {}),
        timeoutMs: this.config.twimlTimeoutMs,
      });
      if (answer.status < 200 || answer.status > 299) return { ok: false, reason: 'twiml_fetch_failed' };
      body = answer.body;
    } catch {
      return { ok: false, reason: 'twiml_fetch_failed' };
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    } catch {
      return { ok: false, reason: 'twiml_invalid' };
    }
    const verbs = parseTwiml(text.trim());
    return verbs ? { ok: true, verbs } : { ok: false, reason: 'twiml_invalid' };
  }
}
