import type { BrowserInstance } from '../ports/browser.js';
import type { Clock } from '../ports/clock.js';
import type { BrowserConfig } from './browser-config.js';
import { agentLimitMessage, rateLimited } from './session-record.js';

/** A session whose browser runs (or is starting) in this process. */
export interface LiveSession {
  agentId: string;
  /** Null while the browser starts. */
  instance: BrowserInstance | null;
  /** The latest activity on the session, in service time: noted in memory, written only by the idle job. */
  lastActivityMs: number;
}

/**
 * The sessions whose browser runs (or is starting) in this process, and what only this process
 * knows of them: the browser and the latest activity (CDP messages and API calls cost no write).
 * It also answers this process's limits of open sessions, counted here because a slot is taken
 * before the browser starts, so concurrent creates cannot pass them.
 */
export class LiveSessions {
  private readonly sessions = new Map<string, LiveSession>();

  constructor(
    private readonly clock: Clock,
    private readonly config: BrowserConfig,
  ) {}

  /** The session's browser and activity, if it runs here. */
  get(sessionId: string): LiveSession | undefined {
    return this.sessions.get(sessionId);
  }

  /** Whether the session's browser runs (or starts) here. */
  has(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  /** Takes the slot of a session whose browser is about to start, active at `nowMs`. */
  start(sessionId: string, agentId: string, nowMs: number): LiveSession {
    const live: LiveSession = { agentId, instance: null, lastActivityMs: nowMs };
    this.sessions.set(sessionId, live);
    return live;
  }

  /** Forgets a session (its browser is stopped by the caller). */
  delete(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  /** Every session running here, as a copy (the caller may delete while it walks). */
  entries(): Array<[string, LiveSession]> {
    return [...this.sessions];
  }

  /** How many sessions have a browser in this process. */
  get size(): number {
    return this.sessions.size;
  }

  /**
   * Notes activity on a session at `atMs` (default: now), never moving it backwards: a forwarded
   * call may bring the later time of the process it came through.
   */
  touch(sessionId: string, atMs: number = this.clock.now()): void {
    const live = this.sessions.get(sessionId);
    if (live) live.lastActivityMs = Math.max(live.lastActivityMs, atMs);
  }

  /**
   * The limits this process counts: open sessions of the agent (unless `perAgent` is false, when
   * the store counts them across processes) and of this process.
   * @throws ApiError 429 rate_limited, Retry-After from when the oldest idle session would end
   */
  checkLimits(agentId: string, perAgent: boolean): void {
    const idleMs = this.config.idleSeconds * 1000;
    const all = [...this.sessions.values()];
    const mine = all.filter((live) => live.agentId === agentId);
    if (perAgent && mine.length >= this.config.maxSessionsPerAgent) {
      throw rateLimited(
        mine.map((live) => live.lastActivityMs),
        idleMs,
        this.clock.now(),
        agentLimitMessage(this.config.maxSessionsPerAgent),
      );
    }
    if (all.length >= this.config.maxSessions) {
      throw rateLimited(
        all.map((live) => live.lastActivityMs),
        idleMs,
        this.clock.now(),
        'the service runs as many browser sessions as it may; try again later',
      );
    }
  }

  /** Forgets every session and stops their browsers, writing nothing. */
  async stopAll(): Promise<void> {
    const instances = [...this.sessions.values()].map((live) => live.instance);
    this.sessions.clear();
    await Promise.all(instances.map((instance) => instance?.close().catch(() => undefined)));
  }
}
