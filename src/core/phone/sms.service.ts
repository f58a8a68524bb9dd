import { inject, injectable } from '../shared/di.js';
import { Clock } from '../ports/clock.js';
import { EventLog } from '../ports/event-log.js';
import { Random } from '../ports/random.js';
import { Store, type StoreTransaction } from '../ports/store.js';
import { CarrierRefusal, Telephony, type CarrierSms, type SmsFate } from '../ports/telephony.js';
import { PolicyService } from '../policy/policy.service.js';
import { IdentityService } from '../identity/identity.service.js';
import { ApiError, notFound } from '../shared/api-error.js';
import { decodeCursor, encodeCursor } from '../shared/cursor.js';
import { Scheduler } from '../services/scheduler.js';
import { parseIso, toIso } from '../shared/time.js';
import { parseE164 } from './numbers.js';
import { PhoneLines } from './phone-lines.js';
import { holdEarlyReport, takeEarlyReports } from './early-reports.js';
import { handOff, type HandOffOutcome } from './carrier-hand-off.js';
import type { DurableStep } from '../api/route.js';
import { CARRIER_REFS, INBOUND, SMS, SMS_STEP_JOB, inboundKey, type SmsStep, inboundView, smsView, type CarrierRef, type StoredInbound, type StoredSms } from './phone.records.js';
import type { InboundList, InboundQuery, InboundSmsAccepted, PhoneListQuery, SendSmsBody, SimInboundSmsBody, SmsList, SmsMessage, SmsStatus } from './phone.schema.js';
import { smsSegments } from './segments.js';

/** How far along a status is; a report never moves a message back. */
const RANK: Record<SmsStatus, number> = { queued: 0, sent: 1, delivered: 2, failed: 2 };

/**
 * SMS: sending (segments and encoding, the carrier's plan played out on the clock as durable jobs,
 * or a real carrier's reports), polling and listing outbound messages, the inbound list, and
 * messages from outside. A message to another agent's number lands in its inbound list when it
 * is delivered. Every status change appends `sms.status_changed` with the message as the API shows it.
 */
@injectable()
export class SmsService {
  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    @inject(Random) private readonly random: Random,
    @inject(EventLog) private readonly events: EventLog,
    @inject(Scheduler) private readonly scheduler: Scheduler,
    @inject(IdentityService) private readonly identity: IdentityService,
    @inject(PhoneLines) private readonly lines: PhoneLines,
    @inject(Telephony) private readonly telephony: Telephony,
    @inject(PolicyService) private readonly policies: PolicyService,
  ) {}

  /**
   * Sends an SMS from the agent's number, in two steps (a staged route): the answer is the send's
   * {@link DurableStep}, which writes the message (`queued`, or further when a real carrier already
   * reported) and its events. A simulated carrier takes the message inside that step's transaction
   * (it plans on the clock). A real carrier is asked before it, once the send is checked against
   * the policy and counted: outside calls never hold a write, and a hand-off that `signal` (the
   * request's deadline) cut leaves no message and no event. A carrier's refusal is kept: the
   * message is `failed` with the carrier's code.
   * @throws ApiError 400 invalid_recipient (`to` not E.164, the agent's own number, or Twilio's invalid test number),
   *   403 policy_violation (`to`: a country outside the policy's, or the day's SMS count); from the
   *   step with a simulated carrier
   * @throws HandOffCut when `signal` cut the real carrier's hand-off
   */
  async send(agentId: string, body: SendSmsBody, signal?: AbortSignal): Promise<DurableStep<SmsMessage>> {
    if (!this.telephony.dispatchSms) return () => this.policies.enforced(agentId, 'phone.sendSms', () => this.sendSimulated(agentId, body));
    const handed = await this.policies.enforced(agentId, 'phone.sendSms', () => this.handOff(agentId, body, signal));
    return () => this.recordHandOff(handed.record, handed.outcome);
  }

  /** Checks, counts, stores and plans a message in one transaction (a carrier that plans on the clock). */
  private async sendSimulated(agentId: string, body: SendSmsBody): Promise<SmsMessage> {
    const to = await this.lines.recipient(this.store.view, agentId, body.to);
    const messageId = this.random.id('sms');
    const now = toIso(this.clock.now());
    const record = await this.store.transaction(async (tx) => {
      await this.policies.checkPhone(tx, agentId, 'sms', to);
      const record = draftSms(agentId, messageId, to, (await this.lines.line(tx, agentId)).phone_number, body.body, now);
      await this.accept(tx, record);
      const plan = await this.telephony.planSms(tx, this.carrierSms(record));
      if (plan) {
        await this.scheduler.schedule(tx, plan.sent_at_ms, SMS_STEP_JOB, {
          message_id: messageId,
          status: 'sent',
          then: { at_ms: plan.settles_at_ms, ...fateData(plan.fate) },
        });
      }
      return record;
    });
    return smsView(record);
  }

  /**
   * Checks the send against the policy and counts it (committed on its own, as a run's count is:
   * the carrier may have taken a message whose hand-off was cut), then hands it to the carrier.
   * @throws HandOffCut when `signal` cut the hand-off
   */
  private async handOff(agentId: string, body: SendSmsBody, signal: AbortSignal | undefined): Promise<{ record: StoredSms; outcome: HandOffOutcome }> {
    const to = await this.lines.recipient(this.store.view, agentId, body.to);
    const messageId = this.random.id('sms');
    const now = toIso(this.clock.now());
    const from = await this.store.transaction(async (tx) => {
      await this.policies.checkPhone(tx, agentId, 'sms', to);
      return (await this.lines.line(tx, agentId)).phone_number;
    });
    const record = draftSms(agentId, messageId, to, from, body.body, now);
    return { record, outcome: await handOff(() => this.telephony.dispatchSms!(this.carrierSms(record), signal), signal) };
  }

  /**
   * Writes a message a real carrier answered for: taken (with the reports that came before the
   * carrier's answer applied) or refused at once (`failed`; Twilio's numeric codes are kept,
   * anything else, such as no answer at all, is 30008, unknown error).
   */
  private async recordHandOff(record: StoredSms, outcome: HandOffOutcome): Promise<SmsMessage> {
    const updated = await this.store.transaction(async (tx) => {
      await this.accept(tx, record);
      if ('carrier_id' in outcome) {
        if (!(await tx.get(CARRIER_REFS, outcome.carrier_id))) await tx.insert<CarrierRef>(CARRIER_REFS, outcome.carrier_id, { kind: 'sms', id: record.message_id });
        for (const early of await takeEarlyReports(tx, outcome.carrier_id)) {
          await this.move(tx, record.message_id, early.status as 'sent' | 'delivered' | 'failed', early.error_code, false);
        }
      } else {
        const code = outcome.failure instanceof CarrierRefusal && /^\d+$/.test(outcome.failure.code) ? outcome.failure.code : '30008';
        await this.move(tx, record.message_id, 'failed', code, false);
      }
      return (await tx.get<StoredSms>(SMS, record.message_id))!;
    });
    return smsView(updated);
  }

  /** Stores a new outbound message with its first `sms.status_changed` and counts it as the agent's activity. */
  private async accept(tx: StoreTransaction, record: StoredSms): Promise<void> {
    await tx.insert(SMS, record.message_id, record, record.owner);
    await this.events.append(tx, { type: 'sms.status_changed', agent_id: record.owner, data: { ...smsView(record) } });
    await this.identity.recordActivity(tx, record.owner, 'messages_sent');
  }

  /** One of the agent's outbound messages. @throws ApiError 404 not_found (unknown or another agent's) */
  async get(agentId: string, messageId: string): Promise<SmsMessage> {
    const record = await this.store.view.get<StoredSms>(SMS, messageId);
    if (!record || record.owner !== agentId) throw notFound('message');
    return smsView(record);
  }

  /** The agent's outbound messages, newest first. @throws ApiError 400 invalid_request (cursor) */
  async list(agentId: string, query: PhoneListQuery): Promise<SmsList> {
    const before = query.cursor === undefined ? undefined : decodeCursor('phone.sms', query.cursor);
    const page = await this.store.view.page<StoredSms>(SMS, { partition: agentId, limit: query.limit, ...(before === undefined ? {} : { before }) });
    const last = page.items[page.items.length - 1];
    return { messages: page.items.map(({ record }) => smsView(record)), next_cursor: page.hasMore && last ? encodeCursor('phone.sms', last.position) : null };
  }

  /**
   * The agent's inbound messages, newest first, optionally only those received after `since`.
   * Inbound messages are stored in arrival order, so the walk stops at the first older one.
   * @throws ApiError 400 invalid_request (cursor)
   */
  async inbound(agentId: string, query: InboundQuery): Promise<InboundList> {
    const before = query.cursor === undefined ? undefined : decodeCursor('phone.messages', query.cursor);
    const sinceMs = query.since === undefined ? undefined : parseIso(query.since)!;
    const rows = (await this.store.view.page<StoredInbound>(INBOUND, { partition: agentId, limit: query.limit + 1, ...(before === undefined ? {} : { before }) })).items;
    const kept = [];
    for (const row of rows) {
      if (sinceMs !== undefined && row.record.received_ms <= sinceMs) break;
      kept.push(row);
    }
    const page = kept.slice(0, query.limit);
    const last = page[page.length - 1];
    return { messages: page.map(({ record }) => inboundView(record)), next_cursor: kept.length > query.limit && last ? encodeCursor('phone.messages', last.position) : null };
  }

  /**
   * An SMS from outside the service to an agent's number (`POST /_sim/phone/inbound`, a real
   * carrier's inbound callback).
   * @throws ApiError 404 not_found (`to` is no agent's number), 400 invalid_request (`from` not E.164)
   */
  async receive(body: SimInboundSmsBody, carrierId?: string): Promise<InboundSmsAccepted> {
    const from = parseE164(body.from);
    if (!from) throw new ApiError('invalid_request', `from: expected an E.164 number such as +14155552671, got "${body.from.slice(0, 64)}"`, 'from');
    const to = parseE164(body.to)?.number;
    const messageId = this.random.id('sms');
    return this.store.transaction(async (tx) => {
      // A carrier retries a callback it thinks failed: the message it names lands once.
      const landed = carrierId === undefined ? undefined : await tx.get<CarrierRef>(CARRIER_REFS, carrierId);
      if (landed?.kind === 'inbound') return { message_id: landed.id };
      const owner = to === undefined ? undefined : await this.lines.ownerOf(tx, to);
      if (owner === undefined || to === undefined) throw new ApiError('not_found', `to: ${body.to.slice(0, 64)} is not a number of this service`, 'to');
      await this.land(tx, owner, { id: messageId, from: from.number, to, body: body.body });
      if (carrierId !== undefined && landed === undefined) await tx.insert<CarrierRef>(CARRIER_REFS, carrierId, { kind: 'inbound', id: messageId });
      return { message_id: messageId };
    });
  }

  /** Runs one step of a simulated message's plan (the `phone.sms.step` job). */
  async step(data: SmsStep): Promise<void> {
    await this.store.transaction(async (tx) => {
      const moved = await this.move(tx, data.message_id, data.status, data.error_code ?? null, true);
      if (moved && data.then) {
        const { at_ms, ...next } = data.then;
        await this.scheduler.schedule(tx, at_ms, SMS_STEP_JOB, { message_id: data.message_id, ...next });
      }
    });
  }

  /** Applies a real carrier's report about the message it knows as `carrierId`. */
  async report(carrierId: string, status: 'sent' | 'delivered' | 'failed', errorCode: string | null): Promise<void> {
    await this.store.transaction(async (tx) => {
      const ref = await tx.get<CarrierRef>(CARRIER_REFS, carrierId);
      if (ref === undefined) await holdEarlyReport(tx, carrierId, { status, error_code: errorCode }, this.clock.now());
      else if (ref.kind === 'sms') await this.move(tx, ref.id, status, errorCode, false);
    });
  }

  /**
   * Moves a message to `status` if that is forward; lands a delivered message in the recipient
   * agent's inbound list when the carrier is simulated (a real carrier calls the inbound edge).
   */
  private async move(tx: StoreTransaction, messageId: string, status: 'sent' | 'delivered' | 'failed', errorCode: string | null, simulated: boolean): Promise<boolean> {
    const record = await tx.get<StoredSms>(SMS, messageId);
    if (!record || RANK[status] <= RANK[record.status]) return false;
    const next: StoredSms = { ...record, status, error_code: status === 'failed' ? (errorCode ?? '30008') : null, updated_at: toIso(this.clock.now()) };
    await tx.update(SMS, messageId, next);
    await this.events.append(tx, { type: 'sms.status_changed', agent_id: record.owner, data: { ...smsView(next) } });
    if (status === 'delivered' && simulated) {
      const recipient = await this.lines.ownerOf(tx, record.to);
      if (recipient !== undefined) await this.land(tx, recipient, { id: messageId, from: record.from, to: record.to, body: record.body });
    }
    return true;
  }

  /** Writes an inbound message into `owner`'s list and appends `sms.received`. */
  private async land(tx: StoreTransaction, owner: string, message: { id: string; from: string; to: string; body: string }): Promise<void> {
    const nowMs = this.clock.now();
    const record: StoredInbound = { ...message, num_segments: smsSegments(message.body).num_segments, received_at: toIso(nowMs), owner, received_ms: nowMs };
    await tx.insert(INBOUND, inboundKey(owner, message.id), record, owner);
    await this.events.append(tx, { type: 'sms.received', agent_id: owner, data: { ...inboundView(record) } });
  }

  private carrierSms(record: StoredSms): CarrierSms {
    return { message_id: record.message_id, agent_id: record.owner, from: record.from, to: record.to, body: record.body };
  }
}

/** A new outbound message, `queued`. */
function draftSms(owner: string, messageId: string, to: string, from: string, text: string, now: string): StoredSms {
  const { encoding, num_segments } = smsSegments(text);
  return { message_id: messageId, owner, to, from, body: text, status: 'queued', num_segments, encoding, error_code: null, created_at: now, updated_at: now };
}

/** A fate as job data. */
function fateData(fate: SmsFate): { status: 'delivered' } | { status: 'failed'; error_code: string } {
  return fate.status === 'delivered' ? { status: 'delivered' } : { status: 'failed', error_code: fate.error_code };
}
