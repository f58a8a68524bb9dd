import type { HttpClient } from '../../core/ports/http-client.js';
import { CarrierRefusal, type CallPlan, type CarrierCall, type CarrierSms, type SmsPlan, type Telephony, type TelephonyReports } from '../../core/ports/telephony.js';
import { twilioCallbackEdge, type TwilioEdge } from './twilio-callbacks.js';

/** How to reach a Twilio account. */
export interface TwilioOptions {
  /** `AC...` */
  accountSid: string;
  /** The account's auth token: Basic auth of the REST API and the key of callback signatures. */
  authToken: string;
  /** Where this service is reachable from Twilio, e.g. `https://agents.example.com`: status and inbound callbacks go to `{callbackBaseUrl}/_twilio/...`. */
  callbackBaseUrl: string;
  /** Every outbound request goes through this port. */
  httpClient: HttpClient;
  /** Twilio's REST API (default `https://api.twilio.com`; tests point it at a local server). */
  apiBaseUrl?: string;
  /** Sends from this number of the account instead of the agent's drawn number. */
  fromNumber?: string;
  /** Real-time limit of one REST request in milliseconds (default 10,000). */
  timeoutMs?: number;
}

/** Twilio's error answer (`{code, message, more_info, status}`). */
interface TwilioError {
  code?: number;
  message?: string;
}

/**
 * The phone network through Twilio's REST API (2010-04-01): SMS through the Messages resource and
 * calls through the Calls resource, form-encoded with Basic auth, each with a `StatusCallback` to
 * this service's `/_twilio` edge, where signed callbacks report status changes and inbound SMS.
 * It plans nothing on the clock (Twilio decides), so `planSms`/`planCall` answer null.
 */
export class TwilioTelephony implements Telephony {
  private readonly api: string;
  private readonly callbacks: string;

  constructor(private readonly options: TwilioOptions) {
    this.api = `${(options.apiBaseUrl ?? 'https://api.twilio.com').replace(/\/$/, '')}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}`;
    this.callbacks = `${options.callbackBaseUrl.replace(/\/$/, '')}/_twilio`;
  }

  /** Twilio decides an SMS's fate and reports it: no plan. */
  async planSms(): Promise<SmsPlan | null> {
    return null;
  }

  /** Twilio decides a call's course and reports it: no plan. */
  async planCall(): Promise<CallPlan | null> {
    return null;
  }

  /** Creates a Message resource. @throws CarrierRefusal with Twilio's error code */
  async dispatchSms(sms: CarrierSms, signal?: AbortSignal): Promise<{ carrier_id: string }> {
    const form = new URLSearchParams({ To: sms.to, From: this.options.fromNumber ?? sms.from, Body: sms.body, StatusCallback: `${this.callbacks}/sms/status` });
    return this.create('Messages.json', form, signal);
  }

  /** Creates a Call resource: a script becomes inline TwiML `<Say>`, a URL is Twilio's `Url`. @throws CarrierRefusal with Twilio's error code */
  async dispatchCall(call: CarrierCall, signal?: AbortSignal): Promise<{ carrier_id: string }> {
    const form = new URLSearchParams({ To: call.to, From: this.options.fromNumber ?? call.from });
    if ('script' in call.flow) form.set('Twiml', `<Response><Say>${escapeXml(call.flow.script)}</Say></Response>`);
    else form.set('Url', call.flow.twiml_url);
    form.set('StatusCallback', `${this.callbacks}/call/status`);
    form.set('StatusCallbackMethod', 'POST');
    for (const event of ['initiated', 'ringing', 'answered', 'completed']) form.append('StatusCallbackEvent', event);
    return this.create('Calls.json', form, signal);
  }

  /**
   * Readiness: Twilio answers the account resource with these credentials.
   * @throws Error naming Twilio's status when it does not
   */
  async ready(signal: AbortSignal): Promise<void> {
    const answer = await this.options.httpClient.request({
      method: 'GET',
      url: `${this.api}.json`,
      headers: { authorization: this.authorization(), accept: 'application/json' },
      timeoutMs: this.options.timeoutMs ?? 10_000,
      signal,
    });
    if (answer.status < 200 || answer.status >= 300) throw new Error(`Twilio answered ${answer.status}`);
  }

  /** The HTTP Basic credentials of the account. */
  private authorization(): string {
    return `Basic ${Buffer.from(`${this.options.accountSid}:${this.options.authToken}`).toString('base64')}`;
  }

  /** The `/_twilio` edge that verifies and applies Twilio's callbacks. */
  callbackEdge(reports: TelephonyReports): TwilioEdge {
    return twilioCallbackEdge({ authToken: this.options.authToken, callbackBaseUrl: this.options.callbackBaseUrl, reports });
  }

  private async create(resource: string, form: URLSearchParams, signal: AbortSignal | undefined): Promise<{ carrier_id: string }> {
    const answer = await this.options.httpClient
      .request({
        method: 'POST',
        url: `${this.api}/${resource}`,
        headers: {
          authorization: this.authorization(),
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: form.toString(),
        timeoutMs: this.options.timeoutMs ?? 10_000,
        ...(signal ? { signal } : {}),
      })
      .catch((error: unknown) => {
        throw new CarrierRefusal('unreachable', `Twilio did not answer: ${(error as Error)?.message ?? String(error)}`);
      });
    let json: { sid?: unknown } & TwilioError = {};
    try {
      json = JSON.parse(new TextDecoder().decode(answer.body)) as typeof json;
    } catch {
      // An answer that is not JSON is judged by its status alone.
    }
    if (answer.status >= 200 && answer.status < 300 && typeof json.sid === 'string') return { carrier_id: json.sid };
    throw new CarrierRefusal(json.code === undefined ? `http_${answer.status}` : String(json.code), json.message ?? `Twilio answered ${answer.status}`);
  }
}

function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (char) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[char]!);
}
