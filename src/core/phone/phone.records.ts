import { z } from 'zod';
import { defineJob, type JobData } from '../services/job-type.js';
import type { Call, InboundSms, SmsMessage } from './phone.schema.js';

/** Number → owner (uniqueness and routing of inbound messages). */
export const NUMBERS = 'phone_numbers';
/** Agent → its line. */
export const LINES = 'phone_lines';
/** Outbound SMS, partitioned by sender. */
export const SMS = 'phone_sms';
/** Inbound SMS, partitioned by recipient, keyed `<agent>:<id>`. */
export const INBOUND = 'phone_inbound';
/** Calls, partitioned by caller. */
export const CALLS = 'phone_calls';
/** A real carrier's id → the message or call it belongs to. */
export const CARRIER_REFS = 'phone_carrier_refs';

/** Job type of one status step of a simulated SMS, and the step that follows it (`then`). */
export const SMS_STEP_JOB = defineJob(
  'phone.sms.step',
  z.object({
    message_id: z.string(),
    status: z.enum(['sent', 'delivered', 'failed']),
    error_code: z.string().optional(),
    then: z.object({ at_ms: z.number(), status: z.enum(['delivered', 'failed']), error_code: z.string().optional() }).optional(),
  }),
);

/** Job type of one step of a simulated call (ringing, answer, TwiML fetch, end). */
export const CALL_STEP_JOB = defineJob(
  'phone.call.step',
  z.discriminatedUnion('step', [
    z.object({ step: z.literal('ringing'), call_id: z.string(), answers_at_ms: z.number(), refusal: z.string().nullable() }),
    z.object({ step: z.literal('answer'), call_id: z.string(), refusal: z.string().nullable() }),
    z.object({ step: z.literal('fetch'), call_id: z.string(), url: z.string(), method: z.enum(['GET', 'POST']), redirects: z.int() }),
    z.object({ step: z.literal('end'), call_id: z.string(), status: z.enum(['completed', 'failed']), failure_reason: z.string().nullable() }),
  ]),
);

/** One step of a simulated call, as its job carries it. */
export type CallStep = JobData<typeof CALL_STEP_JOB>;
/** One step of a simulated SMS, as its job carries it. */
export type SmsStep = JobData<typeof SMS_STEP_JOB>;

/** An agent's number. */
export interface PhoneLine {
  agent_id: string;
  phone_number: string;
  country: string;
}

/** An outbound SMS as stored. */
export interface StoredSms extends SmsMessage {
  owner: string;
}

/** An inbound SMS as stored. */
export interface StoredInbound extends InboundSms {
  owner: string;
  received_ms: number;
}

/** One line of a call's transcript as stored (`at_ms` lets a read hide lines not yet spoken). */
export interface StoredLine {
  at: string;
  at_ms: number;
  text: string;
}

/** A call as stored. */
export interface StoredCall extends Omit<Call, 'transcript'> {
  owner: string;
  flow: { script: string } | { twiml_url: string };
  answered_ms: number | null;
  redirects: number;
  transcript: StoredLine[];
}

/** What a real carrier's id refers to. */
export interface CarrierRef {
  /** `sms` and `call`: sent by an agent; `inbound`: an SMS the carrier delivered to an agent (kept so a retried callback lands once). */
  kind: 'sms' | 'call' | 'inbound';
  id: string;
}

/** Key of an inbound copy. */
export function inboundKey(owner: string, id: string): string {
  return `${owner}:${id}`;
}

/** The API object of a stored SMS. */
export function smsView(record: StoredSms): SmsMessage {
  return {
    message_id: record.message_id,
    to: record.to,
    from: record.from,
    body: record.body,
    status: record.status,
    num_segments: record.num_segments,
    encoding: record.encoding,
    error_code: record.error_code,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/** The API object of a stored inbound SMS. */
export function inboundView(record: StoredInbound): InboundSms {
  return { id: record.id, from: record.from, to: record.to, body: record.body, num_segments: record.num_segments, received_at: record.received_at };
}

/** The API object of a stored call at `nowMs`: transcript lines not yet spoken are left out. */
export function callView(record: StoredCall, nowMs: number): Call {
  return {
    call_id: record.call_id,
    to: record.to,
    from: record.from,
    status: record.status,
    created_at: record.created_at,
    duration_seconds: record.duration_seconds,
    ended_at: record.ended_at,
    failure_reason: record.failure_reason,
    transcript: record.transcript.filter((line) => line.at_ms <= nowMs).map(({ at, text }) => ({ at, text })),
  };
}
