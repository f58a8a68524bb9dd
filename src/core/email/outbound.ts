import { inject, injectable } from '../shared/di.js';
import { BlobStore } from '../ports/blob-store.js';
import { Clock } from '../ports/clock.js';
import { EventLog } from '../ports/event-log.js';
import { MailTransport, MailTransportError, type OutboundMail, type TransportOutcome } from '../ports/mail-transport.js';
import { Store, type StoreTransaction } from '../ports/store.js';
import { Scheduler, type Job } from '../services/scheduler.js';
import { ServiceConfig } from '../shared/service-config.js';
import { toIso } from '../shared/time.js';
import { blobBytes } from '../services/blob-bytes.js';
import type { Outbox } from './email.schema.js';
import { OUTBOUND, outboxView, recipientStates, type OutboundRecord, type RecipientState } from './email.records.js';
import { BounceWriter, type PreparedBounce } from './bounce.js';
import { backoffMs, RetryPolicy } from './retry-policy.js';
import type { FailedRecipient } from './dsn.js';

/** Longest transport error kept on an outbound record. */
const ERROR_MAX = 500;

/** Job type of an outbound delivery attempt. */
export const OUTBOUND_ATTEMPT_JOB = 'email.outbound.attempt';

/** What one attempt did for one recipient. */
interface Verdict {
  state: 'sent' | 'deferred' | 'failed';
  replyCode: number | null;
  diagnostic: string;
}

function clip(text: string): string {
  return text.slice(0, ERROR_MAX);
}

/** The verdict for every attempted recipient, from the transport's answer or its failure. */
function verdicts(addresses: readonly string[], outcome: TransportOutcome | { failure: unknown }): Map<string, Verdict> {
  const result = new Map<string, Verdict>();
  if ('failure' in outcome) {
    const failure = outcome.failure;
    const error = failure instanceof MailTransportError ? failure : new MailTransportError(null, failure instanceof Error ? failure.message : String(failure));
    const diagnostic = clip(error.message) || 'the transport failed';
    for (const address of addresses) result.set(address, { state: error.temporary ? 'deferred' : 'failed', replyCode: error.replyCode, diagnostic });
    return result;
  }
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  for (const address of addresses) {
    if (outcome.accepted.some((done) => same(done, address))) {
      result.set(address, { state: 'sent', replyCode: Number(/^\d{3}/.exec(outcome.response)?.[0] ?? 250), diagnostic: clip(outcome.response) });
      continue;
    }
    const refusal = outcome.refusals?.find((entry) => same(entry.address, address));
    const replyCode = refusal?.replyCode ?? null;
    // A refusal without a code counts as permanent: a recipient refused at RCPT TO.
    const temporary = replyCode !== null && replyCode < 500;
    result.set(address, { state: temporary ? 'deferred' : 'failed', replyCode, diagnostic: clip(refusal?.response || outcome.response || 'recipient refused by the relay') });
  }
  return result;
}

/**
 * The durable outbound queue: mail to addresses outside the service. Each message is a stored
 * record with the state of every envelope recipient. The record and a first attempt job are
 * written in the send's own transaction; the send then makes the first attempt itself once it is
 * committed (so the API answers after the relay did, and the simulated world needs no clock move),
 * outside any transaction, so a slow relay never holds book-keeping.
 *
 * Every attempt is claimed first: the claim schedules the job of the next attempt before the
 * transport is called, so a crash in the middle still leads to a retry after a restart. The
 * outcome is recorded per recipient: accepted (`sent`, event `email.outbound`), a temporary
 * failure (4xx, no answer, a timeout: `deferred`, tried again with Postfix-like backoff on the
 * clock), or a permanent one (5xx: `failed`). A recipient still deferred once the queue lifetime
 * (5 days of service time by default) has passed is given up. Failed recipients get the sender an
 * RFC 3464 bounce in its inbox, threaded to the original, and an `email.delivery_failed` event
 * (also a webhook), in the same transaction as the outcome.
 */
@injectable()
export class OutboundDelivery {
  /** Attempts under way in this process, by message id: a second claim waits for the first. */
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Bumped by a restore or a stop: outcomes of attempts started before are not recorded. */
  private generation = 0;

  constructor(
    @inject(Store) private readonly store: Store,
    @inject(EventLog) private readonly events: EventLog,
    @inject(BlobStore) private readonly blobs: BlobStore,
    @inject(MailTransport) private readonly transport: MailTransport,
    @inject(ServiceConfig) private readonly config: ServiceConfig,
    @inject(Clock) private readonly clock: Clock,
    @inject(Scheduler) private readonly scheduler: Scheduler,
    @inject(RetryPolicy) private readonly policy: RetryPolicy,
    @inject(BounceWriter) private readonly bounces: BounceWriter,
  ) {}

  /** Records an outbound message inside the sending transaction, with the job of its first attempt. */
  async record(tx: StoreTransaction, record: OutboundRecord): Promise<void> {
    const states: RecipientState[] = record.recipients.map((address) => ({ address, state: 'queued', attempts: 0, last_attempt_at: null, reply_code: null, diagnostic: null }));
    const jobId = await this.scheduler.schedule(tx, record.sent_ms, OUTBOUND_ATTEMPT_JOB, { message_id: record.message_id });
    await tx.insert<OutboundRecord>(OUTBOUND, record.message_id, { ...record, recipient_states: states, attempts: 0, next_attempt_ms: record.sent_ms, job_id: jobId, bounce_ids: [] });
  }

  /** Makes the first attempt of a recorded message (after its send committed) and records the outcome. */
  handOff(record: OutboundRecord): Promise<void> {
    return this.attempt(record.message_id, null);
  }

  /** Runs an attempt job (`email.outbound.attempt`). */
  run(job: Job): Promise<void> {
    return this.attempt(String(job.data.message_id), job.id);
  }

  /** Drops what attempts started before a restore would record: the restored world has its own queue. */
  restored(): void {
    this.generation++;
    this.inFlight.clear();
  }

  /** Stops recording outcomes (the runtime is closing); the claimed attempts are retried after a restart. */
  stop(): void {
    this.generation++;
  }

  /** Everything handed to the transport, oldest first (`GET /_sim/email/outbox`). */
  async outbox(): Promise<Outbox> {
    return { messages: (await this.store.view.all<OutboundRecord>(OUTBOUND)).map((record) => outboxView(record, this.config.filesUrl)) };
  }

  /**
   * One attempt for the recipients still waiting: claimed (by the job `jobId`, or by the send
   * itself when null), made, recorded. Concurrent calls for one message run one after the other,
   * and a claim that is no longer current (another attempt took the message) does nothing.
   */
  private async attempt(messageId: string, jobId: string | null): Promise<void> {
    const previous = this.inFlight.get(messageId);
    if (previous) await previous.catch(() => undefined);
    const work = this.claimAndSend(messageId, jobId);
    const settled = work.finally(() => {
      if (this.inFlight.get(messageId) === settled) this.inFlight.delete(messageId);
    });
    this.inFlight.set(messageId, settled);
    return settled;
  }

  private async claimAndSend(messageId: string, jobId: string | null): Promise<void> {
    const generation = this.generation;
    // The claim commits with the attempt job's unit (so a crash after it retries); the hand-off to
    // the relay runs outside any unit, where a slow relay holds no other write.
    const claimed = await this.store.transaction((tx) => this.claim(tx, messageId, jobId));
    if (!claimed) return;
    const deliver = async () => {
      let outcome: TransportOutcome | { failure: unknown };
      try {
        outcome = await this.transport.send(this.mailOf(claimed.record, claimed.pending));
      } catch (failure) {
        outcome = { failure };
      }
      if (generation !== this.generation) return;
      const retryAfterMs = 'failure' in outcome && outcome.failure instanceof MailTransportError ? outcome.failure.retryAfterMs : null;
      await this.finish(messageId, claimed.attempt, verdicts(claimed.pending, outcome), retryAfterMs);
    };
    await this.store.outside(deliver);
  }

  /**
   * Claims the next attempt of a message in `tx`: the job of the attempt after it is scheduled
   * first (a crash mid-attempt retries), the attempt counted. Answers what to send, or nothing
   * when there is nothing to do or the claim is not current.
   */
  private async claim(tx: StoreTransaction, messageId: string, jobId: string | null): Promise<{ record: OutboundRecord; pending: string[]; attempt: number } | null> {
    const record = await tx.get<OutboundRecord>(OUTBOUND, messageId);
    if (!record) return null;
    const attempts = record.attempts ?? 0;
    // The send's own first attempt claims only an untried message; a job only the attempt it was scheduled for.
    if (jobId === null ? attempts > 0 : record.job_id !== jobId) return null;
    const pending = recipientStates(record)
      .filter((state) => state.state === 'queued' || state.state === 'deferred')
      .map((state) => state.address);
    if (pending.length === 0) return null;
    const nowMs = this.clock.now();
    if (record.job_id && record.job_id !== jobId) await this.scheduler.cancel(tx, record.job_id);
    const attempt = attempts + 1;
    const successorAt = this.nextAttemptAt(record, nowMs, attempt);
    const successor = await this.scheduler.schedule(tx, successorAt, OUTBOUND_ATTEMPT_JOB, { message_id: messageId });
    await tx.update<OutboundRecord>(OUTBOUND, messageId, { ...record, attempts: attempt, job_id: successor, next_attempt_ms: successorAt });
    return { record, pending, attempt };
  }

  /** When the attempt after failed attempt `attempt` is due: the backoff, but never past the end of the queue lifetime. */
  private nextAttemptAt(record: OutboundRecord, nowMs: number, attempt: number): number {
    const expiresAt = record.sent_ms + this.policy.lifetimeMs;
    return Math.max(nowMs + 1, Math.min(nowMs + backoffMs(this.policy, attempt), expiresAt));
  }

  /**
   * Records attempt `attempt`: each recipient's verdict (a temporary failure once the queue
   * lifetime has passed is the last one: given up), the events, and a bounce to the sender for
   * every newly failed recipient; cancels the next attempt's job when no recipient waits any more,
   * and moves it to the time the next hop asked for (`retryAfterMs`) when it gave one.
   */
  private async finish(messageId: string, attempt: number, results: Map<string, Verdict>, retryAfterMs: number | null): Promise<void> {
    const nowMs = this.clock.now();
    const before = await this.store.view.get<OutboundRecord>(OUTBOUND, messageId);
    if (!before) return;
    const lastAttempt = toIso(nowMs);
    const failures: FailedRecipient[] = [];
    for (const state of recipientStates(before)) {
      const verdict = results.get(state.address);
      if (verdict?.state === 'failed') failures.push({ address: state.address, replyCode: verdict.replyCode, diagnostic: verdict.diagnostic, reason: 'refused', lastAttemptMs: nowMs });
      if (verdict?.state === 'deferred' && nowMs >= before.sent_ms + this.policy.lifetimeMs) {
        failures.push({ address: state.address, replyCode: verdict.replyCode, diagnostic: verdict.diagnostic, reason: 'expired', lastAttemptMs: nowMs });
      }
    }
    // Bounce bytes go to the blob store before the transaction that records them.
    const bounce: PreparedBounce | null = failures.length > 0 ? await this.bounces.prepare(before, failures) : null;
    await this.store.transaction(async (tx) => {
      const record = await tx.get<OutboundRecord>(OUTBOUND, messageId);
      if (!record || (record.attempts ?? 0) !== attempt) return;
      const failed = new Set(failures.map((failure) => failure.address));
      const states = recipientStates(record).map((state): RecipientState => {
        const verdict = results.get(state.address);
        if (failed.has(state.address)) {
          const failure = failures.find((entry) => entry.address === state.address)!;
          return { ...state, state: 'failed', attempts: state.attempts + 1, last_attempt_at: lastAttempt, reply_code: failure.replyCode, diagnostic: failure.diagnostic };
        }
        if (!verdict) return state;
        return { ...state, state: verdict.state, attempts: state.attempts + 1, last_attempt_at: lastAttempt, reply_code: verdict.replyCode, diagnostic: verdict.diagnostic };
      });
      const waiting = states.some((state) => state.state === 'queued' || state.state === 'deferred');
      if (!waiting && record.job_id) await this.scheduler.cancel(tx, record.job_id);
      let jobId = record.job_id ?? null;
      let nextAttemptMs = record.next_attempt_ms ?? null;
      if (waiting && retryAfterMs !== null) {
        if (jobId) await this.scheduler.cancel(tx, jobId);
        nextAttemptMs = Math.max(nowMs + 1, Math.min(nowMs + retryAfterMs, record.sent_ms + this.policy.lifetimeMs));
        jobId = await this.scheduler.schedule(tx, nextAttemptMs, OUTBOUND_ATTEMPT_JOB, { message_id: messageId });
      }
      const accepted = states.filter((state) => state.state === 'sent').map((state) => state.address);
      const rejected = states.filter((state) => state.state === 'failed').map((state) => state.address);
      const newlySent = states.filter((state) => state.state === 'sent' && results.get(state.address)?.state === 'sent').map((state) => state.address);
      const lastError = [...results.values()].find((verdict) => verdict.state !== 'sent')?.diagnostic ?? failures[0]?.diagnostic ?? record.error;
      const bounceIds = bounce ? await this.bounces.write(tx, record, bounce) : [];
      await tx.update<OutboundRecord>(OUTBOUND, messageId, {
        ...record,
        recipient_states: states,
        status: waiting ? 'queued' : accepted.length > 0 ? 'sent' : 'failed',
        accepted,
        rejected,
        error: lastError ?? null,
        next_attempt_ms: waiting ? nextAttemptMs : null,
        job_id: waiting ? jobId : null,
        bounce_ids: [...(record.bounce_ids ?? []), ...bounceIds],
      });
      if (newlySent.length > 0) await this.events.append(tx, { type: 'email.outbound', agent_id: record.owner, data: { message_id: messageId, recipients: newlySent } });
      if (failures.length > 0) {
        await this.events.append(tx, {
          type: 'email.delivery_failed',
          agent_id: record.owner,
          data: {
            message_id: messageId,
            thread_id: record.thread_id,
            recipients: failures.map((failure) => failure.address),
            error: failures[0]!.diagnostic,
            failures: failures.map((failure) => ({ address: failure.address, reason: failure.reason, reply_code: failure.replyCode, diagnostic: failure.diagnostic })),
            bounce_message_id: bounceIds[0] ?? null,
          },
        });
      }
    });
  }

  private mailOf(record: OutboundRecord, recipients: readonly string[]): OutboundMail {
    const blobs = this.blobs;
    return {
      messageId: record.headers['Message-ID'] ?? '',
      date: record.sent_ms,
      from: record.from,
      to: [...record.to],
      cc: [...record.cc],
      envelope: { from: record.from, to: [...recipients] },
      subject: record.subject,
      text: record.text,
      html: record.html,
      inReplyTo: record.headers['In-Reply-To'] ?? null,
      references: record.headers.References ?? null,
      attachments: record.attachments.map((attachment) => ({
        filename: attachment.filename,
        contentType: attachment.content_type,
        size: attachment.size,
        open: () => blobBytes(blobs, attachment.sha256),
      })),
    };
  }
}
