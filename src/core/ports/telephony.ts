import type { ServiceIdentifier } from '../shared/di.js';
import type { StoreTransaction } from './store.js';

/** An SMS the phone service accepted, handed to the carrier. */
export interface CarrierSms {
  message_id: string;
  agent_id: string;
  from: string;
  to: string;
  body: string;
}

/** How an SMS ends: delivered, or failed with a Twilio error code such as `"30003"`. */
export type SmsFate = { status: 'delivered' } | { status: 'failed'; error_code: string };

/** A simulated carrier's whole plan for an SMS, on the service clock. */
export interface SmsPlan {
  /** When it is `sent`. */
  sent_at_ms: number;
  /** When it reaches its fate. */
  settles_at_ms: number;
  fate: SmsFate;
}

/** A call the phone service accepted, handed to the carrier. */
export interface CarrierCall {
  call_id: string;
  agent_id: string;
  from: string;
  to: string;
  /** What the call does once answered: say a script, or run the TwiML at a URL. */
  flow: { script: string } | { twiml_url: string };
}

/** Why a call ends `failed` before it is answered. */
export type CallRefusal = 'busy' | 'no_answer';

/** A simulated carrier's plan for a call up to its answer, on the service clock. */
export interface CallPlan {
  ringing_at_ms: number;
  /** When it is answered, or when it fails unanswered. */
  answers_at_ms: number;
  /** Null when the call is answered; else why it fails. */
  refusal: CallRefusal | null;
}

/** A carrier refused to take a message or call (a REST error): the Twilio error code, or a reason. */
export class CarrierRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'CarrierRefusal';
  }
}

/** What a carrier's callbacks report: the phone service applies them to its records. */
export interface TelephonyReports {
  /** A status of an SMS the carrier took (`sent`, `delivered`, `failed` with its error code). */
  smsStatus(carrierId: string, status: 'sent' | 'delivered' | 'failed', errorCode: string | null): Promise<void>;
  /** A status of a call the carrier took; `duration_seconds` on the end, `failure_reason` when failed. */
  callStatus(carrierId: string, status: 'ringing' | 'in-progress' | 'completed' | 'failed', details: { duration_seconds?: number; failure_reason?: string }): Promise<void>;
  /**
   * An SMS from outside to one of the service's numbers; `carrier_id` (Twilio's MessageSid) makes a
   * retried callback land once.
   */
  inboundSms(message: { from: string; to: string; body: string; carrier_id?: string }): Promise<void>;
}

/**
 * The phone network. The simulated carrier decides every outcome when it takes a message or call
 * (`planSms`/`planCall` answer a plan the service plays out on its clock). A real carrier answers
 * null from the plans, takes the message or call after the service's transaction commits
 * (`dispatchSms`/`dispatchCall`, which answer the carrier's id) and reports what happens through
 * {@link TelephonyReports}.
 */
export interface Telephony {
  /**
   * The fate of an SMS, decided inside the send's transaction (what it reads or writes goes through
   * `tx`, awaited in order); null when the carrier reports it later.
   */
  planSms(tx: StoreTransaction, sms: CarrierSms): Promise<SmsPlan | null>;
  /** The fate of a call up to its answer, decided inside the call's transaction; null when the carrier reports it later. */
  planCall(tx: StoreTransaction, call: CarrierCall): Promise<CallPlan | null>;
  /** Hands an SMS to a real carrier; `signal` ends the attempt. @throws CarrierRefusal when the carrier refused it */
  dispatchSms?(sms: CarrierSms, signal?: AbortSignal): Promise<{ carrier_id: string }>;
  /** Places a call with a real carrier; `signal` ends the attempt. @throws CarrierRefusal when the carrier refused it */
  dispatchCall?(call: CarrierCall, signal?: AbortSignal): Promise<{ carrier_id: string }>;
}

/** Injection token of {@link Telephony}. */
export const Telephony = Symbol.for('agent-services/Telephony') as ServiceIdentifier<Telephony>;
