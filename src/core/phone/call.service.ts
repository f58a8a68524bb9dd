import { inject, injectable } from '../shared/di.js';
import { Clock } from '../ports/clock.js';
import { EventLog } from '../ports/event-log.js';
import { Random } from '../ports/random.js';
import { Store, type StoreTransaction } from '../ports/store.js';
import { CarrierRefusal, Telephony, type CarrierCall } from '../ports/telephony.js';
import { PolicyService } from '../policy/policy.service.js';
import { IdentityService } from '../identity/identity.service.js';
import { notFound } from '../shared/api-error.js';
import { decodeCursor, encodeCursor } from '../shared/cursor.js';
import { Scheduler } from '../services/scheduler.js';
import { toIso } from '../shared/time.js';
import { PhoneConfig } from './phone-config.js';
import { PhoneLines } from './phone-lines.js';
import { CALLS, CALL_STEP_JOB, CARRIER_REFS, callView, type CallStep, type CarrierRef, type StoredCall } from './phone.records.js';
import type { Call, CallList, CallStatus, PhoneListQuery, PlaceCallBody, PlacedCall } from './phone.schema.js';
import { speechSeconds } from './speech.js';
import { TwimlFetcher } from './twiml-fetch.js';
import { runTwiml } from './twiml.js';
import { holdEarlyReport, takeEarlyReports } from './early-reports.js';
import { handOff, type HandOffOutcome } from './carrier-hand-off.js';
import type { DurableStep } from '../api/route.js';

/** Call statuses a real carrier reports. */
type CarrierCallStatus = 'ringing' | 'in-progress' | 'completed' | 'failed';

const TERMINAL = new Set<CallStatus>(['completed', 'failed']);
const RANK: Record<CallStatus, number> = { initiated: 0, ringing: 1, 'in-progress': 2, completed: 3, failed: 3 };

/**
 * Outbound voice calls: `initiated`, `ringing`, `in-progress` once answered, then `completed` when
 * the flow ends (a script spoken at the configured rate, or TwiML fetched through the `HttpClient`
 * port and run), or `failed` (busy, no answer, TwiML that cannot be fetched or read). Simulated
 * calls move on the clock as durable jobs; the outbound HTTP happens in a job, outside any store
 * transaction. Every change appends `call.status_changed` with the call as the API shows it.
 */
@injectable()
export class CallService {
  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    @inject(Random) private readonly random: Random,
    @inject(EventLog) private readonly events: EventLog,
    @inject(Scheduler) private readonly scheduler: Scheduler,
    @inject(IdentityService) private readonly identity: IdentityService,
    @inject(PhoneLines) private readonly lines: PhoneLines,
    @inject(Telephony) private readonly telephony: Telephony,
    @inject(TwimlFetcher) private readonly twiml: TwimlFetcher,
    @inject(PhoneConfig) private readonly config: PhoneConfig,
    @inject(PolicyService) private readonly policies: PolicyService,
  ) {}

  /**
   * Places a call from the agent's number, in two steps (a staged route), as an SMS is sent: the
   * answer is the call's {@link DurableStep}, which writes it (`initiated`, or further when a real
   * carrier already reported). A simulated carrier plans it inside that step's transaction; a real
   * one is asked before it, once the call is checked against the policy and counted, so a hand-off
   * that `signal` (the request's deadline) cut leaves no call and no event. A carrier's refusal is
   * kept: the call is `failed` (`carrier_error_<code>`, or `carrier_unavailable`).
   * @throws ApiError 400 invalid_recipient (`to` not E.164, the agent's own number, or Twilio's invalid test number),
   *   403 policy_violation (`to`: a country outside the policy's, or the day's call count); from the
   *   step with a simulated carrier
   * @throws HandOffCut when `signal` cut the real carrier's hand-off
   */
  async place(agentId: string, body: PlaceCallBody, signal?: AbortSignal): Promise<DurableStep<PlacedCall>> {
    if (!this.telephony.dispatchCall) return () => this.policies.enforced(agentId, 'phone.placeCall', () => this.placeSimulated(agentId, body));
    const handed = await this.policies.enforced(agentId, 'phone.placeCall', () => this.handOff(agentId, body, signal));
    return async () => placedView(await this.recordHandOff(handed.record, handed.outcome));
  }

  /** Checks, counts, stores and plans a call in one transaction (a carrier that plans on the clock). */
  private async placeSimulated(agentId: string, body: PlaceCallBody): Promise<PlacedCall> {
    const to = await this.lines.recipient(this.store.view, agentId, body.to);
    const callId = this.random.id('call');
    const nowMs = this.clock.now();
    const record = await this.store.transaction(async (tx) => {
      await this.policies.checkPhone(tx, agentId, 'calls', to);
      const record = draftCall(agentId, callId, to, (await this.lines.line(tx, agentId)).phone_number, body, nowMs);
      await this.accept(tx, record, nowMs);
      const plan = await this.telephony.planCall(tx, this.carrierCall(record));
      if (plan) await this.schedule(tx, plan.ringing_at_ms, { step: 'ringing', call_id: callId, answers_at_ms: plan.answers_at_ms, refusal: plan.refusal });
      return record;
    });
    return placedView(record);
  }

  /**
   * Checks the call against the policy and counts it (committed on its own: the carrier may have
   * taken a call whose hand-off was cut), then hands it to the carrier.
   * @throws HandOffCut when `signal` cut the hand-off
   */
  private async handOff(agentId: string, body: PlaceCallBody, signal: AbortSignal | undefined): Promise<{ record: StoredCall; outcome: HandOffOutcome }> {
    const to = await this.lines.recipient(this.store.view, agentId, body.to);
    const callId = this.random.id('call');
    const nowMs = this.clock.now();
    const from = await this.store.transaction(async (tx) => {
      await this.policies.checkPhone(tx, agentId, 'calls', to);
      return (await this.lines.line(tx, agentId)).phone_number;
    });
    const record = draftCall(agentId, callId, to, from, body, nowMs);
    return { record, outcome: await handOff(() => this.telephony.dispatchCall!(this.carrierCall(record), signal), signal) };
  }

  /** Writes a call a real carrier answered for: taken (with the reports that came before its answer applied) or refused at once (`failed`). */
  private recordHandOff(record: StoredCall, outcome: HandOffOutcome): Promise<StoredCall> {
    return this.store.transaction(async (tx) => {
      const nowMs = this.clock.now();
      await this.accept(tx, record, nowMs);
      if ('carrier_id' in outcome) {
        if (!(await tx.get(CARRIER_REFS, outcome.carrier_id))) await tx.insert<CarrierRef>(CARRIER_REFS, outcome.carrier_id, { kind: 'call', id: record.call_id });
        for (const { status, error_code: _none, ...details } of await takeEarlyReports(tx, outcome.carrier_id)) {
          await this.applyReport(tx, record.call_id, status as CarrierCallStatus, details);
        }
        return (await tx.get<StoredCall>(CALLS, record.call_id))!;
      }
      return this.finish(tx, record, 'failed', outcome.failure instanceof CarrierRefusal ? `carrier_error_${outcome.failure.code}` : 'carrier_unavailable');
    });
  }

  /** Stores a new call with its first `call.status_changed`. */
  private async accept(tx: StoreTransaction, record: StoredCall, nowMs: number): Promise<void> {
    await tx.insert(CALLS, record.call_id, record, record.owner);
    await this.events.append(tx, { type: 'call.status_changed', agent_id: record.owner, data: { ...callView(record, nowMs) } });
  }

  /** One of the agent's calls. @throws ApiError 404 not_found (unknown or another agent's) */
  async get(agentId: string, callId: string): Promise<Call> {
    const record = await this.store.view.get<StoredCall>(CALLS, callId);
    if (!record || record.owner !== agentId) throw notFound('call');
    return callView(record, this.clock.now());
  }

  /** The agent's calls, newest first. @throws ApiError 400 invalid_request (cursor) */
  async list(agentId: string, query: PhoneListQuery): Promise<CallList> {
    const before = query.cursor === undefined ? undefined : decodeCursor('phone.calls', query.cursor);
    const page = await this.store.view.page<StoredCall>(CALLS, { partition: agentId, limit: query.limit, ...(before === undefined ? {} : { before }) });
    const last = page.items[page.items.length - 1];
    const nowMs = this.clock.now();
    return { calls: page.items.map(({ record }) => callView(record, nowMs)), next_cursor: page.hasMore && last ? encodeCursor('phone.calls', last.position) : null };
  }

  /** Runs one step of a simulated call (the `phone.call.step` job). */
  async step(step: CallStep): Promise<void> {
    if (step.step === 'fetch') return this.fetchFlow(step);
    await this.store.transaction(async (tx) => {
      const record = await tx.get<StoredCall>(CALLS, step.call_id);
      if (!record || TERMINAL.has(record.status)) return;
      const nowMs = this.clock.now();
      switch (step.step) {
        case 'ringing':
          await this.update(tx, { ...record, status: 'ringing' });
          await this.schedule(tx, step.answers_at_ms, { step: 'answer', call_id: record.call_id, refusal: step.refusal });
          return;
        case 'answer':
          if (step.refusal !== null) {
            await this.finish(tx, record, 'failed', step.refusal);
            return;
          }
          await this.answer(tx, record, nowMs);
          return;
        case 'end':
          await this.finish(tx, record, step.status, step.failure_reason);
          return;
      }
    });
  }

  /** Applies a real carrier's report about the call it knows as `carrierId`. */
  async report(carrierId: string, status: CarrierCallStatus, details: { duration_seconds?: number; failure_reason?: string }): Promise<void> {
    await this.store.transaction(async (tx) => {
      const ref = await tx.get<CarrierRef>(CARRIER_REFS, carrierId);
      if (ref === undefined) await holdEarlyReport(tx, carrierId, { status, error_code: null, ...details }, this.clock.now());
      else if (ref.kind === 'call') await this.applyReport(tx, ref.id, status, details);
    });
  }

  /** Moves a call forward by a real carrier's report (a report that is not forward is ignored). */
  private async applyReport(tx: StoreTransaction, callId: string, status: CarrierCallStatus, details: { duration_seconds?: number; failure_reason?: string }): Promise<void> {
    const record = await tx.get<StoredCall>(CALLS, callId);
    if (!record || RANK[status] <= RANK[record.status]) return;
    const nowMs = this.clock.now();
    if (status === 'ringing') await this.update(tx, { ...record, status });
    else if (status === 'in-progress') {
      const transcript = 'script' in record.flow ? [{ at: toIso(nowMs), at_ms: nowMs, text: record.flow.script }] : [];
      await this.update(tx, { ...record, status, answered_ms: nowMs, transcript });
    } else {
      await this.finish(tx, record, status, status === 'failed' ? (details.failure_reason ?? 'failed') : null, details.duration_seconds);
    }
  }

  /** Answers a call: `in-progress`, then the script's end, or the TwiML fetch, on the clock. */
  private async answer(tx: StoreTransaction, record: StoredCall, nowMs: number): Promise<void> {
    if ('script' in record.flow) {
      const line = { at: toIso(nowMs), at_ms: nowMs, text: record.flow.script };
      await this.update(tx, { ...record, status: 'in-progress', answered_ms: nowMs, transcript: [line] });
      const endsAt = nowMs + Math.min(speechSeconds(record.flow.script, this.config.wordsPerMinute), this.config.maxCallSeconds) * 1000;
      await this.schedule(tx, endsAt, { step: 'end', call_id: record.call_id, status: 'completed', failure_reason: null });
      return;
    }
    await this.update(tx, { ...record, status: 'in-progress', answered_ms: nowMs });
    await this.schedule(tx, nowMs, { step: 'fetch', call_id: record.call_id, url: record.flow.twiml_url, method: 'POST', redirects: 0 });
  }

  /**
   * Fetches a TwiML document (outside any transaction), then records what it says with the times
   * it says it and schedules what follows: the next fetch of a `<Redirect>` (at most
   * `maxRedirects`; past that the call ends as if the document had), or the end of the call.
   */
  private async fetchFlow(step: Extract<CallStep, { step: 'fetch' }>): Promise<void> {
    const current = await this.store.view.get<StoredCall>(CALLS, step.call_id);
    if (!current || current.status !== 'in-progress') return;
    const fetched = await this.twiml.fetch(step.url, step.method, current);
    await this.store.transaction(async (tx) => {
      const record = await tx.get<StoredCall>(CALLS, step.call_id);
      if (!record || record.status !== 'in-progress') return;
      const nowMs = this.clock.now();
      if (!fetched.ok) {
        await this.finish(tx, record, 'failed', fetched.reason);
        return;
      }
      const elapsedSeconds = (nowMs - (record.answered_ms ?? nowMs)) / 1000;
      const run = runTwiml(fetched.verbs, this.config.wordsPerMinute, Math.max(0, this.config.maxCallSeconds - elapsedSeconds));
      const lines = run.said.map(({ offset, text }) => ({ at: toIso(nowMs + offset * 1000), at_ms: nowMs + offset * 1000, text }));
      await tx.update<StoredCall>(CALLS, record.call_id, { ...record, transcript: [...record.transcript, ...lines], redirects: step.redirects });
      const at = nowMs + run.end.offset * 1000;
      const end = (status: 'completed' | 'failed', reason: string | null) => this.schedule(tx, at, { step: 'end', call_id: record.call_id, status, failure_reason: reason });
      switch (run.end.kind) {
        case 'end':
        case 'hangup':
        case 'limit':
          await end('completed', null);
          return;
        case 'reject':
          await end('failed', run.end.reason);
          return;
        case 'redirect': {
          if (step.redirects >= this.config.maxRedirects) return end('completed', null);
          const next = resolveUrl(run.end.url, step.url);
          if (next === undefined) return end('failed', 'twiml_invalid');
          await this.schedule(tx, at, { step: 'fetch', call_id: record.call_id, url: next, method: run.end.method, redirects: step.redirects + 1 });
          return;
        }
      }
    });
  }

  /** Ends a call: its status, end time, duration (from the answer, 0 when never answered) and reason. */
  private async finish(tx: StoreTransaction, record: StoredCall, status: 'completed' | 'failed', reason: string | null, carrierDuration?: number): Promise<StoredCall> {
    const nowMs = this.clock.now();
    const duration = carrierDuration ?? (record.answered_ms === null ? 0 : Math.round((nowMs - record.answered_ms) / 1000));
    const next = await this.update(tx, { ...record, status, ended_at: toIso(nowMs), duration_seconds: duration, failure_reason: status === 'failed' ? reason : null });
    if (status === 'completed') await this.identity.recordActivity(tx, record.owner, 'messages_sent');
    return next;
  }

  private async update(tx: StoreTransaction, record: StoredCall): Promise<StoredCall> {
    await tx.update(CALLS, record.call_id, record);
    await this.events.append(tx, { type: 'call.status_changed', agent_id: record.owner, data: { ...callView(record, this.clock.now()) } });
    return record;
  }

  private async schedule(tx: StoreTransaction, atMs: number, step: CallStep): Promise<void> {
    await this.scheduler.schedule(tx, atMs, CALL_STEP_JOB, step);
  }

  private carrierCall(record: StoredCall): CarrierCall {
    return { call_id: record.call_id, agent_id: record.owner, from: record.from, to: record.to, flow: record.flow };
  }
}

/** A new outbound call, `initiated`, with the flow it runs once answered. */
function draftCall(owner: string, callId: string, to: string, from: string, body: PlaceCallBody, nowMs: number): StoredCall {
  const flow = body.script !== undefined ? { script: body.script } : { twiml_url: body.twiml_url! };
  return { call_id: callId, owner, to, from, status: 'initiated', created_at: toIso(nowMs), duration_seconds: null, ended_at: null, failure_reason: null, transcript: [], flow, answered_ms: null, redirects: 0 };
}

/** A call as `POST /v1/phone/calls` answers it. */
function placedView(record: StoredCall): PlacedCall {
  return { call_id: record.call_id, to: record.to, from: record.from, status: record.status, created_at: record.created_at };
}

/** A redirect target resolved against the document's URL, if it is http or https. */
function resolveUrl(target: string, base: string): string | undefined {
  try {
    const url = new URL(target, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}
