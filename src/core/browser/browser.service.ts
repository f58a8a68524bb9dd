import { inject, injectable } from '../shared/di.js';
import { Browser, NoOpenPageError, type BrowserInstance, type CdpChannel } from '../ports/browser.js';
import { Clock } from '../ports/clock.js';
import { EventLog } from '../ports/event-log.js';
import { Random } from '../ports/random.js';
import { Store, type StoreTransaction } from '../ports/store.js';
import { ApiError, notFound } from '../shared/api-error.js';
import { decodeCursor, encodeCursor } from '../shared/cursor.js';
import { z } from 'zod';
import { Scheduler, defineJob, type JobData, type JobInfo } from '../services/scheduler.js';
import { ServiceConfig } from '../shared/service-config.js';
import { toIso } from '../shared/time.js';
import { IdentityService } from '../identity/identity.service.js';
import { BrowserConfig } from './browser-config.js';
import { BrowserOwners } from './browser-owners.js';
import { BrowserPeers, type PeerCall } from './browser-peers.js';
import { browserCloseOf } from './devtools-path.js';
import { agentLimitMessage, rateLimited, sameSecret, SESSIONS, sessionWire, type StoredSession } from './session-record.js';
import { LiveSessions } from './live-sessions.js';
import type { BrowserScreenshot, BrowserSession, BrowserSessionList, BrowserSessionsQuery, CreateBrowserSessionBody, TerminatedReason } from './browser.schema.js';

/** Job type of the idle check of a session. */
export const IDLE_JOB = defineJob('browser.idle', z.object({ session_id: z.string() }));
const DEFAULT_VIEWPORT = { width: 1280, height: 720 };
const SECRET_LENGTH = 32;
/** Service time after which an idle check asks again an owner it could not reach. */
const REMOTE_IDLE_RETRY_MS = 60_000;

/** What the DevTools edge learns about an upgrade: accept it, or refuse with a status. */
export type DevtoolsVerdict = { kind: 'accept'; instance: BrowserInstance } | { kind: 'refuse'; status: 401 | 404; message: string };

/**
 * Browser sessions: one browser per session from the {@link Browser} port, records in the store,
 * idle termination on the service clock. Activity (CDP messages, API calls on the session) is
 * noted in memory and costs no write; the durable idle job re-reads it when it falls due and
 * either terminates the session or re-arms itself at the new expiry.
 */
@injectable()
export class BrowserSessions {
  /** The sessions whose browser runs here, with their activity. */
  private readonly live: LiveSessions;
  /** Present when other processes serve the same world: quotas, forwarding and lost owners. */
  private readonly owners: BrowserOwners | undefined;

  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    @inject(Random) private readonly random: Random,
    @inject(EventLog) private readonly events: EventLog,
    @inject(Scheduler) private readonly scheduler: Scheduler,
    @inject(ServiceConfig) private readonly urls: ServiceConfig,
    @inject(IdentityService) private readonly identity: IdentityService,
    @inject(BrowserConfig) private readonly config: BrowserConfig,
    @inject(Browser) private readonly browser: Browser,
    @inject(BrowserPeers) peers: BrowserPeers,
  ) {
    this.live = new LiveSessions(clock, config);
    const self = peers.self;
    if (store.shared && self) {
      this.owners = new BrowserOwners(store, store.shared, self, peers, (tx, sessionId) => this.markTerminated(tx, sessionId, 'lost', undefined));
    }
  }

  /** Which provider runs the browsers. */
  get provider(): Browser['kind'] {
    return this.browser.kind;
  }

  /**
   * Starts a session with its own browser.
   * @throws ApiError 404 not_found (unknown agent), 429 rate_limited (with Retry-After) past the
   *   per-agent or per-runtime limit of open sessions
   */
  async create(agentId: string, body: CreateBrowserSessionBody): Promise<BrowserSession> {
    await this.identity.agent(agentId);
    this.live.checkLimits(agentId, this.owners === undefined);
    const now = this.clock.now();
    const idleMs = this.config.idleSeconds * 1000;
    const session: StoredSession = {
      session_id: this.random.id('browserSession'),
      agent_id: agentId,
      secret: this.random.secret(SECRET_LENGTH),
      status: 'open',
      created_at: toIso(now),
      last_activity_ms: now,
      url: body.url ?? null,
      viewport: body.viewport ?? DEFAULT_VIEWPORT,
      terminated_at: null,
      terminated_reason: null,
      job_id: null,
      ...(this.owners ? { owner_id: this.owners.self.id, owner_url: this.owners.self.url() } : {}),
    };
    // The slot is taken before the browser starts, so concurrent creates cannot pass the limit.
    const live = this.live.start(session.session_id, agentId, now);
    let instance: BrowserInstance;
    let reserved = false;
    try {
      // Shared world: the agent's open sessions are counted across processes, in the store.
      if (this.owners) {
        reserved = await this.owners.reserve(agentId, session.session_id, this.config.maxSessionsPerAgent);
        if (!reserved) throw await this.agentLimited(agentId);
      }
      instance = await this.browser.launch({ sessionId: session.session_id, viewport: session.viewport, url: session.url, navigationTimeoutMs: this.config.navigationTimeoutMs });
    } catch (error) {
      this.live.delete(session.session_id);
      if (reserved) await this.owners?.releaseNow(session.session_id).catch(() => undefined);
      throw error;
    }
    if (this.live.get(session.session_id) !== live) {
      // The runtime stopped or its world was restored while the browser started.
      await instance.close();
      await this.owners?.releaseNow(session.session_id).catch(() => undefined);
      throw new Error('the runtime stopped while the browser session was starting');
    }
    live.instance = instance;
    try {
      await this.store.transaction(async (tx) => {
        session.job_id = await this.scheduler.schedule(tx, now + idleMs, IDLE_JOB, { session_id: session.session_id });
        await tx.insert(SESSIONS, session.session_id, session, agentId);
        await this.events.append(tx, { type: 'browser.session.created', agent_id: agentId, data: { session_id: session.session_id, url: session.url, viewport: session.viewport } });
      });
    } catch (error) {
      this.live.delete(session.session_id);
      await instance.close();
      await this.owners?.releaseNow(session.session_id).catch(() => undefined);
      throw error;
    }
    instance.onExit(() => void this.terminate(session.session_id, 'crashed').catch(() => undefined));
    return this.toWire(session);
  }

  /** The calling agent's sessions, newest first. @throws ApiError 400 invalid_request (cursor) */
  async list(agentId: string, query: BrowserSessionsQuery): Promise<BrowserSessionList> {
    const before = query.cursor === undefined ? undefined : decodeCursor('browser.sessions', query.cursor);
    const page = await this.store.view.page<StoredSession>(SESSIONS, { partition: agentId, limit: query.limit, ...(before === undefined ? {} : { before }) });
    const last = page.items[page.items.length - 1];
    return { sessions: page.items.map((item) => this.toWire(item.record)), next_cursor: page.hasMore && last ? encodeCursor('browser.sessions', last.position) : null };
  }

  /** One session of the calling agent; reading an open session is activity. @throws ApiError 404 not_found */
  async get(agentId: string, sessionId: string, local = false): Promise<BrowserSession> {
    let session = await this.owned(agentId, sessionId);
    if (!local && this.isRemote(session)) {
      const forwarded = await this.owners!.forward(session, { op: 'show', session_id: sessionId, agent_id: agentId, at_ms: this.clock.now() });
      if (forwarded.kind === 'answered') return forwarded.body as BrowserSession;
      session = await this.owned(agentId, sessionId);
    }
    this.live.touch(sessionId);
    return this.toWire(session);
  }

  /** Ends a session (a terminated one stays as it is). @throws ApiError 404 not_found */
  async delete(agentId: string, sessionId: string, local = false): Promise<void> {
    const session = await this.owned(agentId, sessionId);
    // An owner found gone has had its sessions ended (`lost`): nothing is left to close.
    if (!local && this.isRemote(session)) return void (await this.owners!.forward(session, { op: 'delete', session_id: sessionId, agent_id: agentId, at_ms: this.clock.now() }));
    await this.terminate(sessionId, 'closed');
  }

  /**
   * A PNG of the session's viewport.
   * @throws ApiError 404 not_found (also when terminated), 409 conflict (a client closed every page),
   *   503 unavailable (the process running the session lives but cannot be reached)
   */
  async screenshot(agentId: string, sessionId: string, local = false): Promise<BrowserScreenshot> {
    const session = await this.owned(agentId, sessionId);
    if (!local && this.isRemote(session)) {
      const forwarded = await this.owners!.forward(session, { op: 'screenshot', session_id: sessionId, agent_id: agentId, at_ms: this.clock.now() });
      if (forwarded.kind === 'answered') return forwarded.body as BrowserScreenshot;
      throw notFound('browser session');
    }
    const instance = this.live.get(sessionId)?.instance;
    if (session.status !== 'open' || !instance) throw notFound('browser session');
    this.live.touch(sessionId);
    const shot = await instance.screenshot().catch((error: unknown) => {
      if (error instanceof NoOpenPageError) throw new ApiError('conflict', 'the session has no open page to capture (a client closed them all); open one first', 'id');
      throw error;
    });
    return { data: Buffer.from(shot.png).toString('base64'), width: shot.width, height: shot.height };
  }

  /**
   * Decides a DevTools WebSocket upgrade: an unknown or ended session is 404, a wrong or missing
   * secret 401. Accepting is activity.
   */
  async authorizeDevtools(sessionId: string, secret: string | null): Promise<DevtoolsVerdict> {
    const session = await this.store.view.get<StoredSession>(SESSIONS, sessionId);
    const instance = this.live.get(sessionId)?.instance;
    if (!session || session.status !== 'open' || !instance) return { kind: 'refuse', status: 404, message: 'no open browser session with this id' };
    if (secret === null || !sameSecret(secret, session.secret)) return { kind: 'refuse', status: 401, message: 'wrong or missing session secret' };
    this.live.touch(sessionId);
    return { kind: 'accept', instance };
  }

  /**
   * Connects an accepted DevTools client; each of its messages is activity. `Browser.close`
   * (puppeteer's `browser.close()`) ends the session as a DELETE would, instead of killing the
   * browser behind the service's back.
   */
  connect(sessionId: string, instance: BrowserInstance, client: CdpChannel): void {
    const live = this.live.get(sessionId);
    const noted: CdpChannel = {
      send: (message) => client.send(message),
      close: () => client.close(),
      onClose: (listener) => client.onClose(listener),
      onMessage: (listener) =>
        client.onMessage((message) => {
          if (live) live.lastActivityMs = this.clock.now();
          if (message.includes('"Browser.close"') && this.closesBrowser(sessionId, message, client)) return;
          listener(message);
        }),
    };
    instance.attach(noted);
  }

  private closesBrowser(sessionId: string, message: string, client: CdpChannel): boolean {
    const close = browserCloseOf(message);
    if (!close) return false;
    // Answered once the ending is recorded (a GET right after browser.close() shows it), before
    // the browser stops (which closes the client's connection).
    const answer = () => client.send(JSON.stringify({ id: close.id, result: {} }));
    void this.terminate(sessionId, 'closed', undefined, answer).catch(answer);
    return true;
  }

  /** Runs the idle job: ends the session when it has been idle long enough, else re-arms the job. */
  async idleCheck({ session_id: sessionId }: JobData<typeof IDLE_JOB>, job: JobInfo): Promise<void> {
    let remoteActivity: number | undefined;
    if (this.owners) {
      const session = await this.store.view.get<StoredSession>(SESSIONS, sessionId);
      if (!session || session.job_id !== job.id) return;
      if (this.isRemote(session)) {
        // Only the owner knows the latest activity: it is asked (a read there, no write, so the
        // job's locks held here meanwhile cannot wait on it).
        const asked = await this.askActivity(session);
        if (asked.kind === 'gone') return;
        if (asked.kind === 'unreachable') return this.rearm(sessionId, job.id, this.clock.now() + REMOTE_IDLE_RETRY_MS);
        remoteActivity = asked.lastActivityMs;
      }
    }
    const live = this.live.get(sessionId);
    const idleMs = this.config.idleSeconds * 1000;
    const now = this.clock.now();
    const outcome = await this.store.transaction(async (tx) => {
      const session = await tx.get<StoredSession>(SESSIONS, sessionId);
      if (!session || session.status !== 'open' || session.job_id !== job.id) return 'nothing';
      if (!live && remoteActivity === undefined) return this.owners ? 'lost' : 'restart';
      const lastActivity = Math.max(live?.lastActivityMs ?? 0, remoteActivity ?? 0, session.last_activity_ms);
      if (lastActivity + idleMs <= now) return 'idle';
      const jobId = await this.scheduler.schedule(tx, lastActivity + idleMs, IDLE_JOB, { session_id: sessionId });
      await tx.update(SESSIONS, sessionId, { ...session, last_activity_ms: lastActivity, job_id: jobId });
      return 'rearmed';
    });
    if (outcome === 'rearmed' || outcome === 'nothing') return;
    await this.terminate(sessionId, outcome, remoteActivity);
    if (remoteActivity !== undefined) {
      // The owner stops the browser once the ending is durable (its sweep would, later).
      const session = await this.store.view.get<StoredSession>(SESSIONS, sessionId);
      const stop = () =>
        this.owners!.forward(session!, { op: 'delete', session_id: sessionId, agent_id: session!.agent_id }).then(
          () => undefined,
          () => undefined,
        );
      if (session) await (this.store.outside(stop) ?? stop());
    }
  }

  /** The owner's latest activity on a session, or word that it is gone (the session ended `lost`) or cannot be reached. */
  private async askActivity(session: StoredSession): Promise<{ kind: 'seen'; lastActivityMs: number } | { kind: 'gone' } | { kind: 'unreachable' }> {
    try {
      const forwarded = await this.owners!.forward(session, { op: 'activity', session_id: session.session_id, agent_id: session.agent_id });
      if (forwarded.kind === 'gone') return forwarded;
      const seen = (forwarded.body as { last_activity_ms?: unknown }).last_activity_ms;
      // The owner runs no browser for it (its world was restored under it): lost.
      if (typeof seen !== 'number') {
        await this.terminate(session.session_id, 'lost');
        return { kind: 'gone' };
      }
      return { kind: 'seen', lastActivityMs: seen };
    } catch {
      return { kind: 'unreachable' };
    }
  }

  /** Moves the session's idle job to `atMs` (when its owner could not be asked now). */
  private async rearm(sessionId: string, jobId: string, atMs: number): Promise<void> {
    await this.store.transaction(async (tx) => {
      const session = await tx.get<StoredSession>(SESSIONS, sessionId);
      if (!session || session.status !== 'open' || session.job_id !== jobId) return;
      await tx.update(SESSIONS, sessionId, { ...session, job_id: await this.scheduler.schedule(tx, atMs, IDLE_JOB, { session_id: sessionId }) });
    });
  }

  /**
   * Answers a call another process forwarded to this one, the owner of the session. `at_ms` is
   * the caller's service time: activity is noted no earlier (this clock may lag behind it).
   * @throws ApiError as the same call made here would
   */
  async answerPeer(call: PeerCall): Promise<unknown> {
    const live = this.live.get(call.session_id);
    if (call.op === 'activity') return { last_activity_ms: live?.instance ? live.lastActivityMs : null };
    if (call.at_ms !== undefined) this.live.touch(call.session_id, call.at_ms);
    if (call.op === 'show') return this.get(call.agent_id, call.session_id, true);
    if (call.op === 'screenshot') return this.screenshot(call.agent_id, call.session_id, true);
    await this.delete(call.agent_id, call.session_id, true);
    return {};
  }

  /**
   * In a world several processes serve (run every few seconds): ends with `lost` the sessions of
   * processes that are gone, ends those of this process that have no browser here any more, and
   * stops browsers here whose session was ended elsewhere. Does nothing in a one-process world.
   */
  async sweep(): Promise<void> {
    if (!this.owners) return;
    const mine = await this.owners.sweep();
    for (const slot of mine) {
      if (this.live.has(slot.session_id)) continue;
      // A slot of this process without a browser: its session ends, and a slot whose session was
      // never recorded (a start that failed while the database was away) is freed as well.
      await this.store.transaction(async (tx) => {
        await this.markTerminated(tx, slot.session_id, 'lost', undefined);
        await this.owners!.release(tx, slot.session_id);
      });
    }
    for (const [sessionId, live] of this.live.entries()) {
      if (!live.instance) continue;
      const session = await this.store.view.get<StoredSession>(SESSIONS, sessionId);
      if (session?.status === 'terminated' && this.live.get(sessionId) === live) {
        this.live.delete(sessionId);
        await live.instance.close().catch(() => undefined);
      }
    }
  }

  /**
   * Ends an open session for `reason`: the record becomes terminated with
   * `browser.session.terminated`, then its browser is stopped. Ending an ended session does nothing.
   * `activityMs`: activity the owner noted (the session's browser runs elsewhere); `recorded`
   * runs once the ending is recorded, before the browser stops.
   */
  async terminate(sessionId: string, reason: TerminatedReason, activityMs?: number, recorded?: () => void): Promise<void> {
    const live = this.live.get(sessionId);
    await this.store.transaction((tx) => this.markTerminated(tx, sessionId, reason, live?.lastActivityMs ?? activityMs));
    recorded?.();
    this.live.delete(sessionId);
    await live?.instance?.close();
  }

  /** Stops every browser of this process without writing (a restarted world marks them `restart`). */
  async stopAll(): Promise<void> {
    await Promise.all([this.live.stopAll(), this.browser.shutdown?.().catch(() => undefined)]);
    await this.owners?.stop();
  }

  /**
   * After a restore or a restart: no browser of the stored world runs any more, so every open
   * session becomes terminated with reason `restart`; browsers of the replaced world are stopped.
   */
  async restored(): Promise<void> {
    const stopping = this.live.stopAll();
    if (this.owners) {
      // Other processes may run browsers of this world: only the sessions of gone processes end (`lost`).
      await stopping;
      // A failed sweep is retried by the next one (the runtime runs them every few seconds).
      await this.sweep().catch(() => undefined);
      return;
    }
    // A restore sets the restored clock and re-arms jobs right after this hook returns: record
    // the terminations after that, at the restored world's time (inside a restore the
    // transaction also waits for the restore's exclusive work to end).
    await Promise.resolve();
    await this.store.transaction(async (tx) => {
      for (const session of await tx.all<StoredSession>(SESSIONS)) {
        if (session.status === 'open') await this.markTerminated(tx, session.session_id, 'restart', undefined);
      }
    });
    await stopping;
  }

  /** How many sessions have a browser in this process. */
  liveCount(): number {
    return this.live.size;
  }

  private async markTerminated(tx: StoreTransaction, sessionId: string, reason: TerminatedReason, lastActivityMs: number | undefined): Promise<void> {
    const session = await tx.get<StoredSession>(SESSIONS, sessionId);
    if (!session || session.status !== 'open') return;
    if (this.owners) await this.owners.release(tx, sessionId);
    if (session.job_id) await this.scheduler.cancel(tx, session.job_id);
    const next: StoredSession = {
      ...session,
      status: 'terminated',
      last_activity_ms: Math.max(session.last_activity_ms, lastActivityMs ?? 0),
      terminated_at: toIso(this.clock.now()),
      terminated_reason: reason,
      job_id: null,
    };
    await tx.update(SESSIONS, sessionId, next);
    await this.events.append(tx, { type: 'browser.session.terminated', agent_id: session.agent_id, data: this.toWire(next) });
  }

  /** The per-agent limit, counted across processes: Retry-After from the last activity the store knows. */
  private async agentLimited(agentId: string): Promise<ApiError> {
    const now = this.clock.now();
    const activity: number[] = [];
    for (const sessionId of await this.owners!.holding(agentId, this.config.maxSessionsPerAgent)) {
      const session = await this.store.view.get<StoredSession>(SESSIONS, sessionId);
      activity.push(Math.max(session?.last_activity_ms ?? 0, this.live.get(sessionId)?.lastActivityMs ?? 0) || now);
    }
    return rateLimited(activity.length > 0 ? activity : [now], this.config.idleSeconds * 1000, now, agentLimitMessage(this.config.maxSessionsPerAgent));
  }

  /** @throws ApiError 404 not_found */
  private async owned(agentId: string, sessionId: string): Promise<StoredSession> {
    const session = await this.store.view.get<StoredSession>(SESSIONS, sessionId);
    if (!session || session.agent_id !== agentId) throw notFound('browser session');
    return session;
  }

  /** An open session whose browser runs in another process. */
  private isRemote(session: StoredSession): boolean {
    return session.status === 'open' && this.owners !== undefined && this.owners.isRemote(session);
  }

  private toWire(session: StoredSession): BrowserSession {
    const live = session.status === 'open' ? this.live.get(session.session_id) : undefined;
    return sessionWire(session, live?.lastActivityMs ?? 0, this.urls.baseUrl, this.config.idleSeconds);
  }
}
