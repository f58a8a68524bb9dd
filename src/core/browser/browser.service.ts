import { timingSafeEqual } from 'node:crypto';
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
import { devtoolsPath, wsBaseOf } from './devtools-path.js';
import type { BrowserScreenshot, BrowserSession, BrowserSessionList, BrowserSessionsQuery, CreateBrowserSessionBody, TerminatedReason } from './browser.schema.js';

const SESSIONS = 'browser_sessions';
/** Job type of the idle check of a session. */
export const IDLE_JOB = defineJob('browser.idle', z.object({ session_id: z.string() }));
const DEFAULT_VIEWPORT = { width: 1280, height: 720 };
const SECRET_LENGTH = 32;

/** A session as stored. Live browsers are never stored: a restored world has none. */
interface StoredSession {
  session_id: string;
  agent_id: string;
  secret: string;
  status: 'open' | 'terminated';
  created_at: string;
  /** Last activity the store knows of; newer activity is kept in memory until the idle job runs. */
  last_activity_ms: number;
  url: string | null;
  viewport: { width: number; height: number };
  terminated_at: string | null;
  terminated_reason: TerminatedReason | null;
  job_id: string | null;
}

/** A session whose browser runs (or is starting) in this process. */
interface LiveSession {
  agentId: string;
  instance: BrowserInstance | null;
  lastActivityMs: number;
}

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
  private readonly live = new Map<string, LiveSession>();

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
  ) {}

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
    this.checkLimits(agentId);
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
    };
    // The slot is taken before the browser starts, so concurrent creates cannot pass the limit.
    const live: LiveSession = { agentId, instance: null, lastActivityMs: now };
    this.live.set(session.session_id, live);
    let instance: BrowserInstance;
    try {
      instance = await this.browser.launch({ sessionId: session.session_id, viewport: session.viewport, url: session.url, navigationTimeoutMs: this.config.navigationTimeoutMs });
    } catch (error) {
      this.live.delete(session.session_id);
      throw error;
    }
    if (this.live.get(session.session_id) !== live) {
      // The runtime stopped or its world was restored while the browser started.
      await instance.close();
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
  async get(agentId: string, sessionId: string): Promise<BrowserSession> {
    const session = await this.owned(agentId, sessionId);
    this.touch(sessionId);
    return this.toWire(session);
  }

  /** Ends a session (a terminated one stays as it is). @throws ApiError 404 not_found */
  async delete(agentId: string, sessionId: string): Promise<void> {
    await this.owned(agentId, sessionId);
    await this.terminate(sessionId, 'closed');
  }

  /**
   * A PNG of the session's viewport.
   * @throws ApiError 404 not_found (also when terminated), 409 conflict (a client closed every page)
   */
  async screenshot(agentId: string, sessionId: string): Promise<BrowserScreenshot> {
    const session = await this.owned(agentId, sessionId);
    const instance = this.live.get(sessionId)?.instance;
    if (session.status !== 'open' || !instance) throw notFound('browser session');
    this.touch(sessionId);
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
    this.touch(sessionId);
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
    let parsed: { id?: unknown; method?: unknown; sessionId?: unknown };
    try {
      parsed = JSON.parse(message) as typeof parsed;
    } catch {
      return false;
    }
    if (parsed.method !== 'Browser.close' || parsed.sessionId !== undefined) return false;
    client.send(JSON.stringify({ id: parsed.id, result: {} }));
    void this.terminate(sessionId, 'closed').catch(() => undefined);
    return true;
  }

  /** Notes activity on an open session (in memory only). */
  touch(sessionId: string): void {
    const live = this.live.get(sessionId);
    if (live) live.lastActivityMs = this.clock.now();
  }

  /** Runs the idle job: ends the session when it has been idle long enough, else re-arms the job. */
  async idleCheck({ session_id: sessionId }: JobData<typeof IDLE_JOB>, job: JobInfo): Promise<void> {
    const live = this.live.get(sessionId);
    const idleMs = this.config.idleSeconds * 1000;
    const now = this.clock.now();
    const outcome = await this.store.transaction(async (tx) => {
      const session = await tx.get<StoredSession>(SESSIONS, sessionId);
      if (!session || session.status !== 'open' || session.job_id !== job.id) return 'nothing';
      if (!live) return 'restart';
      const lastActivity = Math.max(live.lastActivityMs, session.last_activity_ms);
      if (lastActivity + idleMs <= now) return 'idle';
      const jobId = await this.scheduler.schedule(tx, lastActivity + idleMs, IDLE_JOB, { session_id: sessionId });
      await tx.update(SESSIONS, sessionId, { ...session, last_activity_ms: lastActivity, job_id: jobId });
      return 'rearmed';
    });
    if (outcome === 'idle' || outcome === 'restart') await this.terminate(sessionId, outcome);
  }

  /**
   * Ends an open session for `reason`: the record becomes terminated with
   * `browser.session.terminated`, then its browser is stopped. Ending an ended session does nothing.
   */
  async terminate(sessionId: string, reason: TerminatedReason): Promise<void> {
    const live = this.live.get(sessionId);
    await this.store.transaction((tx) => this.markTerminated(tx, sessionId, reason, live));
    this.live.delete(sessionId);
    await live?.instance?.close();
  }

  /** Stops every browser of this process without writing (a restarted world marks them `restart`). */
  async stopAll(): Promise<void> {
    await Promise.all([this.stopInstances(), this.browser.shutdown?.().catch(() => undefined)]);
  }

  private async stopInstances(): Promise<void> {
    const instances = [...this.live.values()].map((live) => live.instance);
    this.live.clear();
    await Promise.all(instances.map((instance) => instance?.close().catch(() => undefined)));
  }

  /**
   * After a restore or a restart: no browser of the stored world runs any more, so every open
   * session becomes terminated with reason `restart`; browsers of the replaced world are stopped.
   */
  async restored(): Promise<void> {
    const stopping = this.stopInstances();
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

  private async markTerminated(tx: StoreTransaction, sessionId: string, reason: TerminatedReason, live: LiveSession | undefined): Promise<void> {
    const session = await tx.get<StoredSession>(SESSIONS, sessionId);
    if (!session || session.status !== 'open') return;
    if (session.job_id) await this.scheduler.cancel(tx, session.job_id);
    const next: StoredSession = {
      ...session,
      status: 'terminated',
      last_activity_ms: Math.max(session.last_activity_ms, live?.lastActivityMs ?? 0),
      terminated_at: toIso(this.clock.now()),
      terminated_reason: reason,
      job_id: null,
    };
    await tx.update(SESSIONS, sessionId, next);
    await this.events.append(tx, { type: 'browser.session.terminated', agent_id: session.agent_id, data: this.toWire(next) });
  }

  /** @throws ApiError 429 rate_limited */
  private checkLimits(agentId: string): void {
    const mine = [...this.live.values()].filter((live) => live.agentId === agentId);
    if (mine.length >= this.config.maxSessionsPerAgent) {
      throw this.limited(mine, `an agent may hold at most ${this.config.maxSessionsPerAgent} open browser sessions; delete one first`);
    }
    if (this.live.size >= this.config.maxSessions) throw this.limited([...this.live.values()], 'the service runs as many browser sessions as it may; try again later');
  }

  private limited(holding: LiveSession[], message: string): ApiError {
    const idleMs = this.config.idleSeconds * 1000;
    const soonest = Math.min(...holding.map((live) => live.lastActivityMs + idleMs));
    const seconds = Math.max(1, Math.ceil((soonest - this.clock.now()) / 1000));
    return new ApiError('rate_limited', message, undefined, { 'Retry-After': String(seconds) });
  }

  /** @throws ApiError 404 not_found */
  private async owned(agentId: string, sessionId: string): Promise<StoredSession> {
    const session = await this.store.view.get<StoredSession>(SESSIONS, sessionId);
    if (!session || session.agent_id !== agentId) throw notFound('browser session');
    return session;
  }

  private toWire(session: StoredSession): BrowserSession {
    const live = session.status === 'open' ? this.live.get(session.session_id) : undefined;
    const lastActivity = Math.max(session.last_activity_ms, live?.lastActivityMs ?? 0);
    return {
      session_id: session.session_id,
      ws_endpoint: `${wsBaseOf(this.urls.baseUrl)}${devtoolsPath(session.session_id, session.secret)}`,
      status: session.status,
      created_at: session.created_at,
      expires_at: toIso(lastActivity + this.config.idleSeconds * 1000),
      last_activity_at: toIso(lastActivity),
      url: session.url,
      viewport: session.viewport,
      terminated_at: session.terminated_at,
      terminated_reason: session.terminated_reason,
    };
  }
}

function sameSecret(given: string, expected: string): boolean {
  const left = Buffer.from(given);
  const right = Buffer.from(expected);
  return left.length === right.length && timingSafeEqual(left, right);
}
