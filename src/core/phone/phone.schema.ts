import { z } from 'zod';
import { exactlyOneOf, httpUrl, intParam, isoDateTime, maxChars, timestamp } from '../shared/schemas.js';
import { isPhoneCountry, PHONE_COUNTRIES } from './numbers.js';

/** Longest SMS body, in characters (Twilio's limit). */
export const SMS_BODY_MAX = 1600;
/** Longest call script, in characters. */
export const SCRIPT_MAX = 4096;

/** ISO 3166-1 alpha-2 country of a new agent's number (case-insensitive on the way in). */
export const PhoneCountry = z
  .string()
  .regex(/^[A-Za-z]{2}$/, { message: 'must be an ISO 3166-1 alpha-2 country code such as US' })
  .transform((code) => code.toUpperCase())
  .refine(isPhoneCountry, { message: 'is not a country numbers can be drawn for (US, CA, GB, DE and most others)' })
  .meta({ pattern: `^(?:${PHONE_COUNTRIES.map((code) => [...code].map((c) => `[${c}${c.toLowerCase()}]`).join('')).join('|')})$` });

/** The phone area's fields of `POST /_sim/agents`. */
export const PhoneCreationFields = {
  /** Country of the agent's number, default US. */
  phone_country: PhoneCountry.optional(),
};

/** Answer of `GET /v1/phone`. */
export const PhoneNumberInfo = z.object({
  phone_number: z.string(),
  country: z.string(),
  capabilities: z.object({ sms: z.boolean(), voice: z.boolean(), mms: z.boolean() }),
});
export type PhoneNumberInfo = z.infer<typeof PhoneNumberInfo>;

/** A phone number as typed by a caller; whether it is valid E.164 is the service's call (400 invalid_recipient, whatever its length). */
const NumberText = z.string().meta({ pattern: '^\\+[1-9][0-9]{1,14}$', description: 'E.164 number such as +14155552671 (400 invalid_recipient otherwise)' });

/** An SMS body: 1 to 1,600 characters. */
const SmsText = maxChars(SMS_BODY_MAX).min(1, { message: 'must be 1 to 1600 characters' });

/** Body of `POST /v1/phone/sms`. */
export const SendSmsBody = z.strictObject({ to: NumberText, body: SmsText });
export type SendSmsBody = z.infer<typeof SendSmsBody>;

/** SMS statuses of SPEC.md part 3. */
export const SmsStatus = z.enum(['queued', 'sent', 'delivered', 'failed']);
export type SmsStatus = z.infer<typeof SmsStatus>;

/** An outbound SMS (send answer, `GET /v1/phone/sms/{message_id}`, list element, event data). */
export const SmsMessage = z.object({
  message_id: z.string(),
  to: z.string(),
  from: z.string(),
  body: z.string(),
  status: SmsStatus,
  num_segments: z.number().int(),
  encoding: z.enum(['GSM-7', 'UCS-2']),
  error_code: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});
export type SmsMessage = z.infer<typeof SmsMessage>;

/** Path of `GET /v1/phone/sms/{message_id}`. */
export const SmsParams = z.strictObject({ message_id: z.string().min(1).max(100) });
export type SmsParams = z.infer<typeof SmsParams>;

const Cursor = z.string().min(1).max(512);

/** Query of `GET /v1/phone/sms` and `GET /v1/phone/calls`. */
export const PhoneListQuery = z.strictObject({ limit: intParam(1, 100).default(20), cursor: Cursor.optional() });
export type PhoneListQuery = z.infer<typeof PhoneListQuery>;

/** Answer of `GET /v1/phone/sms`: newest first. */
export const SmsList = z.object({ messages: z.array(SmsMessage), next_cursor: z.string().nullable() });
export type SmsList = z.infer<typeof SmsList>;

/** Query of `GET /v1/phone/messages`. */
export const InboundQuery = z.strictObject({
  limit: intParam(1, 100).default(20),
  cursor: Cursor.optional(),
  since: isoDateTime.optional(),
});
export type InboundQuery = z.infer<typeof InboundQuery>;

/** An inbound SMS. */
export const InboundSms = z.object({
  id: z.string(),
  from: z.string(),
  to: z.string(),
  body: z.string(),
  num_segments: z.number().int(),
  received_at: timestamp,
});
export type InboundSms = z.infer<typeof InboundSms>;

/** Answer of `GET /v1/phone/messages`: newest first. */
export const InboundList = z.object({ messages: z.array(InboundSms), next_cursor: z.string().nullable() });
export type InboundList = z.infer<typeof InboundList>;

/** Body of `POST /_sim/phone/inbound`: an SMS from outside to an agent's number. */
export const SimInboundSmsBody = z.strictObject({ to: NumberText, from: NumberText, body: SmsText });
export type SimInboundSmsBody = z.infer<typeof SimInboundSmsBody>;

/** Answer of `POST /_sim/phone/inbound`. */
export const InboundSmsAccepted = z.object({ message_id: z.string() });
export type InboundSmsAccepted = z.infer<typeof InboundSmsAccepted>;

/** Body of `POST /v1/phone/calls`: exactly one of `script` or `twiml_url`. */
export const PlaceCallBody = exactlyOneOf(
  z.strictObject({
    to: NumberText,
    script: maxChars(SCRIPT_MAX).min(1, { message: 'must be 1 to 4096 characters' }).optional(),
    twiml_url: httpUrl.optional(),
  }),
  ['script', 'twiml_url'],
);
export type PlaceCallBody = z.infer<typeof PlaceCallBody>;

/** Call statuses of SPEC.md part 3. */
export const CallStatus = z.enum(['initiated', 'ringing', 'in-progress', 'completed', 'failed']);
export type CallStatus = z.infer<typeof CallStatus>;

/** Answer of `POST /v1/phone/calls`. */
export const PlacedCall = z.object({ call_id: z.string(), to: z.string(), from: z.string(), status: CallStatus, created_at: timestamp });
export type PlacedCall = z.infer<typeof PlacedCall>;

/** A call (`GET /v1/phone/calls/{call_id}`, list element, event data). */
export const Call = PlacedCall.extend({
  duration_seconds: z.number().int().nullable(),
  ended_at: timestamp.nullable(),
  failure_reason: z.string().nullable(),
  transcript: z.array(z.object({ at: timestamp, text: z.string() })),
});
export type Call = z.infer<typeof Call>;

/** Path of `GET /v1/phone/calls/{call_id}`. */
export const CallParams = z.strictObject({ call_id: z.string().min(1).max(100) });
export type CallParams = z.infer<typeof CallParams>;

/** Answer of `GET /v1/phone/calls`: newest first. */
export const CallList = z.object({ calls: z.array(Call), next_cursor: z.string().nullable() });
export type CallList = z.infer<typeof CallList>;
