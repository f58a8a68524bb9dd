import { defineRoute } from '../api/route.js';
import {
  Call,
  CallList,
  CallParams,
  InboundList,
  InboundQuery,
  InboundSmsAccepted,
  PhoneListQuery,
  PhoneNumberInfo,
  PlaceCallBody,
  PlacedCall,
  SendSmsBody,
  SimInboundSmsBody,
  SmsList,
  SmsMessage,
  SmsParams,
} from './phone.schema.js';

/** The phone endpoints of SPEC.md part 4 and DECISIONS.md. */
export const phoneRoutes = {
  /** The agent's number (E.164), its country and capabilities. `GET /v1/phone` */
  getNumber: defineRoute({
    id: 'phone.getNumber',
    method: 'GET',
    path: '/v1/phone',
    auth: 'agent',
    tag: 'phone',
    status: 200,
    summary: "The agent's number (E.164), its country and capabilities.",
    response: PhoneNumberInfo,
  }),
  /** Sends an SMS from the agent's number; `queued`, then `sent` and `delivered` (or `failed`) on the clock. `POST /v1/phone/sms` */
  sendSms: defineRoute({
    id: 'phone.sendSms',
    method: 'POST',
    path: '/v1/phone/sms',
    auth: 'agent',
    tag: 'phone',
    status: 201,
    summary: "Sends an SMS from the agent's number; `queued`, then `sent` and `delivered` (or `failed`) on the clock.",
    body: SendSmsBody,
    response: SmsMessage,
  }),
  /** The agent's outbound SMS, newest first. `GET /v1/phone/sms` */
  listSms: defineRoute({
    id: 'phone.listSms',
    method: 'GET',
    path: '/v1/phone/sms',
    auth: 'agent',
    tag: 'phone',
    status: 200,
    summary: "The agent's outbound SMS, newest first.",
    query: PhoneListQuery,
    response: SmsList,
  }),
  /** One outbound SMS, to poll its status. `GET /v1/phone/sms/{message_id}` */
  getSms: defineRoute({
    id: 'phone.getSms',
    method: 'GET',
    path: '/v1/phone/sms/{message_id}',
    auth: 'agent',
    tag: 'phone',
    status: 200,
    summary: 'One outbound SMS, to poll its status.',
    params: SmsParams,
    response: SmsMessage,
  }),
  /** Inbound SMS, newest first, optionally only those received after `since`. `GET /v1/phone/messages` */
  listMessages: defineRoute({
    id: 'phone.listMessages',
    method: 'GET',
    path: '/v1/phone/messages',
    auth: 'agent',
    tag: 'phone',
    status: 200,
    summary: 'Inbound SMS, newest first, optionally only those received after `since`.',
    query: InboundQuery,
    response: InboundList,
  }),
  /** Starts an outbound call that says a script or runs the TwiML at a URL once answered. `POST /v1/phone/calls` */
  placeCall: defineRoute({
    id: 'phone.placeCall',
    method: 'POST',
    path: '/v1/phone/calls',
    auth: 'agent',
    tag: 'phone',
    status: 201,
    summary: 'Starts an outbound call that says a script or runs the TwiML at a URL once answered.',
    body: PlaceCallBody,
    response: PlacedCall,
  }),
  /** The agent's calls, newest first. `GET /v1/phone/calls` */
  listCalls: defineRoute({
    id: 'phone.listCalls',
    method: 'GET',
    path: '/v1/phone/calls',
    auth: 'agent',
    tag: 'phone',
    status: 200,
    summary: "The agent's calls, newest first.",
    query: PhoneListQuery,
    response: CallList,
  }),
  /** One call with its duration, end, failure reason and transcript. `GET /v1/phone/calls/{call_id}` */
  getCall: defineRoute({
    id: 'phone.getCall',
    method: 'GET',
    path: '/v1/phone/calls/{call_id}',
    auth: 'agent',
    tag: 'phone',
    status: 200,
    summary: 'One call with its duration, end, failure reason and transcript.',
    params: CallParams,
    response: Call,
  }),
};

/** The phone part of the simulation control plane. */
export const phoneSimRoutes = {
  /** Delivers an SMS from outside the service to an agent's number. `POST /_sim/phone/inbound` */
  phoneInbound: defineRoute({
    id: 'sim.phoneInbound',
    method: 'POST',
    path: '/_sim/phone/inbound',
    auth: 'admin',
    tag: 'simulation',
    status: 201,
    summary: "Delivers an SMS from outside the service to an agent's number.",
    body: SimInboundSmsBody,
    response: InboundSmsAccepted,
  }),
};
