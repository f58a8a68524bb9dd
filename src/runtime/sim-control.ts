import type { Clock } from '../core/ports/clock.js';
import type { ControllableClock } from '../core/ports/controllable-clock.js';
import type { EventLog, ServiceEvent } from '../core/ports/event-log.js';
import type { Random } from '../core/ports/random.js';
import { CLOCK_CHANGED, type Store, type StoreSnapshot } from '../core/ports/store.js';
import type { ClockMove, ClockState, EventPage, RuntimeSnapshot } from '../core/control/control.schema.js';
import type { SimCreateAgentBody } from './agent-creation.js';
import type { CreatedAgent } from '../core/identity/identity.schema.js';
import type { IdentityService } from '../core/identity/identity.service.js';
import { ApiError } from '../core/shared/api-error.js';
import type { Scheduler } from '../core/services/scheduler.js';
import { LATEST_TIME_ISO, LATEST_TIME_MS, parseIso, toIso } from '../core/shared/time.js';

/** What the control plane needs from the runtime. */
export interface SimControlDeps {
  serviceDomain: string;
  store: Store;
  clock: Clock;
  /** The same clock when it can be moved (simulation); absent for real time. */
  controllableClock: ControllableClock | undefined;
  random: Random;
  events: EventLog;
  scheduler: Scheduler;
  identity: IdentityService;
  /** Called after the clock moved or state was replaced (persistence). */
  changed: () => Promise<void>;
  /** Called right after a restore replaced the state, before anything else runs (areas drop derived state). */
  restored?: () => void;
}

/**
 * The simulation control plane of DECISIONS.md, in-process: create agents, read and move the
 * clock, read the event log, snapshot and restore the whole state.
 */
export class SimControl {
  constructor(private readonly deps: SimControlDeps) {}

  /** Creates an agent; the answer holds its API key, shown only here. */
  createAgent(body: SimCreateAgentBody): Promise<CreatedAgent> {
    return this.deps.identity.createAgent(body);
  }

  /** The service time. */
  clock(): ClockState {
    return { now: toIso(this.deps.clock.now()) };
  }

  /** The service time after catching up with other processes of a shared world (the control plane's answer). */
  async worldClock(): Promise<ClockState> {
    if (this.deps.store.shared) await this.catchUp();
    return this.clock();
  }

  /**
   * Moves simulated time by `seconds` or to `to`, running everything due in time order.
   * @throws ApiError 400 invalid_request (live clock, bad or past instant, past 9999-12-31T23:59:59.999Z)
   */
  async advance(body: ClockMove): Promise<ClockState> {
    const clock = this.deps.controllableClock;
    if (!clock) throw new ApiError('invalid_request', 'the clock is real time; only a simulated clock can be advanced');
    const shared = this.deps.store.shared;
    if (!shared) return this.move(clock, body);
    // A world other processes serve: one advance at a time across them, from the furthest time
    // any reached, with timers for every job any of them scheduled, so every job due by the new
    // time has run (here, or in the process that was running it) before the answer.
    const release = await shared.awaitClaim('clock');
    try {
      await this.catchUp();
      await this.deps.scheduler.resync();
      return await this.move(clock, body);
    } finally {
      await release();
    }
  }

  /** Moves this process's clock to the furthest time the shared world's clock reached. */
  async catchUp(): Promise<void> {
    const clock = this.deps.controllableClock;
    const saved = await this.deps.store.shared?.savedClock();
    if (clock && saved !== undefined && saved > clock.now()) clock.set(saved);
  }

  private async move(clock: ControllableClock, body: ClockMove): Promise<ClockState> {
    if ('to' in body) {
      const target = parseIso(body.to);
      if (target === undefined) throw new ApiError('invalid_request', 'to: must be an ISO 8601 date-time', 'to');
      if (target < clock.now()) throw new ApiError('invalid_request', 'to: must not be in the past', 'to');
      if (target > LATEST_TIME_MS) throw new ApiError('invalid_request', `to: expected an instant no later than ${LATEST_TIME_ISO}, got ${body.to}`, 'to');
      await clock.advanceTo(toIso(target));
    } else {
      if (clock.now() + Math.round(body.seconds * 1000) > LATEST_TIME_MS) {
        throw new ApiError('invalid_request', `seconds: expected at most ${Math.floor((LATEST_TIME_MS - clock.now()) / 1000)} (the clock stops at ${LATEST_TIME_ISO}), got ${body.seconds}`, 'seconds');
      }
      await clock.advance(body.seconds);
    }
    await this.deps.changed();
    return this.clock();
  }

  /** The newest event sequence number a reader may read up to now (see EventLog.newest). */
  lastEventSeq(): Promise<number> {
    return this.deps.events.newest();
  }

  /** Events after `after`, oldest first. */
  async events(after: number, limit: number): Promise<EventPage> {
    const events = await this.deps.events.after(after, limit + 1);
    return { events: events.slice(0, limit), has_more: events.length > limit };
  }

  /**
   * Calls `listener` with every new event once its change has committed (live views), or with
   * `committedHere` only those this process committed (its own counters); returns the unsubscribe
   * function.
   */
  subscribe(listener: (event: ServiceEvent) => void, options?: { committedHere?: boolean }): () => void {
    return this.deps.events.subscribe(listener, options);
  }

  /** The whole state as plain JSON. */
  async snapshot(): Promise<RuntimeSnapshot> {
    // Clock and random state are read in the same turn as the store's export begins (in this order).
    return {
      format: 'agent-services/snapshot',
      version: 1,
      service_domain: this.deps.serviceDomain,
      clock: { now: toIso(this.deps.clock.now()) },
      random: this.deps.random.state(),
      store: (await this.deps.store.export()) as RuntimeSnapshot['store'],
    };
  }

  /**
   * Replaces the whole state with a snapshot; deferred work in it is re-armed.
   * @throws ApiError 400 invalid_request (another service domain, unreadable state)
   */
  async restore(snapshot: RuntimeSnapshot): Promise<void> {
    if (snapshot.service_domain !== this.deps.serviceDomain) {
      throw new ApiError('invalid_request', `service_domain: snapshot is of ${snapshot.service_domain}, not ${this.deps.serviceDomain}`, 'service_domain');
    }
    const now = parseIso(snapshot.clock.now);
    if (now === undefined || now > LATEST_TIME_MS) throw new ApiError('invalid_request', `clock.now: must be an ISO 8601 date-time no later than ${LATEST_TIME_ISO}`, 'clock.now');
    // Alone: after every request and job under way has ended and its writes are durable, and
    // before any new one starts, so no request straddles the two worlds. A pending commit that
    // fails is that commit's failure (500), not a fault of the snapshot.
    await this.deps.store.exclusive(async () => {
      // Random state and clock first: they are checked before they are applied and cheap to put
      // back, while a store import either replaces everything or (throwing) nothing. A durable
      // store saves them in the import's own commit, so they are set before it.
      const clock = this.deps.controllableClock;
      const previousRandom = this.deps.random.state();
      const previousNow = clock?.now();
      try {
        this.deps.random.restore(snapshot.random);
      } catch {
        throw new ApiError('invalid_request', "random: not a state of this runtime's generator", 'random');
      }
      clock?.set(now);
      try {
        await this.deps.store.import(snapshot.store as StoreSnapshot);
      } catch {
        this.deps.random.restore(previousRandom);
        if (previousNow !== undefined) clock?.set(previousNow);
        throw new ApiError('invalid_request', 'the snapshot could not be restored', 'store');
      }
      this.deps.restored?.();
      await this.deps.scheduler.rearmAll();
    });
    await this.deps.changed();
  }

  /**
   * Continues the world a durable store holds (its clock, random state and jobs) and from now on
   * saves the clock and random state in the store's own commits. Does nothing for other stores.
   * @throws Error when the store holds a world of another service domain or of the other mode
   */
  async resume(): Promise<void> {
    const host = this.deps.store.runtimeState;
    if (!host) return;
    // Another process moved the shared clock: this one follows (its timers run on its own next advance).
    this.deps.store.shared?.onRemoteCommit(() => void this.catchUp().catch(() => undefined), { collections: [CLOCK_CHANGED] });
    let saved = await host.load();
    if (!saved && this.deps.store.shared) {
      // A new world that other processes may be creating too: the first to save creates it, and
      // every process then continues from its own fork of its state (no two draw the same ids).
      host.track(
        () => ({ service_domain: this.deps.serviceDomain, clock_ms: this.deps.clock.now(), random: this.deps.random.state() }),
        () => {},
      );
      await host.save();
      saved = await host.load();
    }
    const clock = this.deps.controllableClock;
    if (saved) {
      if (saved.service_domain !== this.deps.serviceDomain) {
        throw new Error(`the stored world belongs to service domain ${saved.service_domain}, not ${this.deps.serviceDomain} (start with --service-domain ${saved.service_domain})`);
      }
      try {
        this.deps.random.restore(saved.random);
      } catch {
        throw new Error('the stored world was saved in the other mode (simulated or live); start it in the mode that made it');
      }
      clock?.set(saved.clock_ms);
      this.deps.restored?.();
      await this.deps.scheduler.rearmAll();
    }
    host.track(
      () => ({ service_domain: this.deps.serviceDomain, clock_ms: this.deps.clock.now(), random: this.deps.random.state() }),
      (state) => {
        // A commit failed: the clock goes back to what is durable. The random state does not:
        // ids drawn by the failed requests may have been seen (reads are not held back by the
        // fsync), and drawing them again would hand the same ids to new records.
        clock?.set(state.clock_ms);
      },
    );
  }
}
