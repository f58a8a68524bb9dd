import type { ClaimRelease, SharedStore, Store, StoreTransaction } from '../ports/store.js';
import { ApiError } from '../shared/api-error.js';
import type { BrowserOwnerSelf, BrowserPeers, PeerCall } from './browser-peers.js';

/** Processes that own sessions: id, advertised URL and the secret their peers present. */
const OWNERS = 'browser_owners';
/** One record per open session (or one starting), partitioned by agent: the per-agent quota. */
const OPEN = 'browser_open';
/** Lock names of the per-agent quota (nothing is stored under them). */
const QUOTA = 'browser_quota';
/** How long a caller waits before asking again when an owner is alive but cannot be reached. */
const UNREACHABLE_RETRY_SECONDS = 5;

interface OwnerRecord {
  owner_id: string;
  url: string;
  secret: string;
}

interface OpenSlot {
  session_id: string;
  agent_id: string;
  owner_id: string;
}

/** Who owns a session, as its record says (absent on records of one-process worlds). */
export interface Owned {
  session_id: string;
  agent_id: string;
  owner_id?: string;
}

/** Ends a session inside the caller's transaction (the service's own termination). */
export type EndSession = (tx: StoreTransaction, sessionId: string) => Promise<void>;

/** What asking the owner gave: its answer, or word that the owner is gone (its sessions ended `lost`). */
export type Forwarded = { kind: 'answered'; body: unknown } | { kind: 'gone' };

function claimName(ownerId: string): string {
  return `browser-owner:${ownerId}`;
}

/**
 * Ownership of browser sessions in a world several processes serve (a {@link SharedStore}): each
 * process holds the claim `browser-owner:<id>` while it lives, the per-agent limit counts open
 * sessions of every process in the store, calls on another process's session are forwarded to
 * it, and the sessions of a process whose claim can be taken (it died) end with `lost`.
 */
export class BrowserOwners {
  private claimed: Promise<ClaimRelease> | undefined;

  constructor(
    private readonly store: Store,
    private readonly shared: SharedStore,
    readonly self: BrowserOwnerSelf,
    private readonly peers: BrowserPeers,
    private readonly endLost: EndSession,
  ) {}

  /** True when the session belongs to another process. */
  isRemote(session: Owned): boolean {
    return session.owner_id !== undefined && session.owner_id !== this.self.id;
  }

  /**
   * Takes a slot of the agent's quota for `sessionId` (this process's claim first, so a slot of
   * this process never exists without it). Answers false, taking nothing, when the agent holds
   * `max` open sessions across every process.
   */
  async reserve(agentId: string, sessionId: string, max: number): Promise<boolean> {
    await this.claimSelf();
    return this.store.transaction(async (tx) => {
      // Two creates of one agent on two processes count one after the other.
      await tx.lock(QUOTA, [agentId]);
      if ((await tx.count(OPEN, agentId)) >= max) return false;
      const url = this.self.url();
      const known = await tx.get<OwnerRecord>(OWNERS, this.self.id);
      const record: OwnerRecord = { owner_id: this.self.id, url, secret: this.self.secret };
      if (!known) await tx.insert(OWNERS, this.self.id, record);
      else if (known.url !== url) await tx.update(OWNERS, this.self.id, record);
      await tx.insert<OpenSlot>(OPEN, sessionId, { session_id: sessionId, agent_id: agentId, owner_id: this.self.id }, agentId);
      return true;
    });
  }

  /** The ids of the sessions holding the agent's quota (for Retry-After). */
  async holding(agentId: string, max: number): Promise<string[]> {
    const page = await this.store.view.page<OpenSlot>(OPEN, { partition: agentId, limit: Math.max(1, max) });
    return page.items.map((item) => item.record.session_id);
  }

  /** Gives a slot back (inside the transaction that ends the session, or after a failed start). */
  async release(tx: StoreTransaction, sessionId: string): Promise<void> {
    await tx.remove(OPEN, sessionId);
  }

  /** Gives a slot back on its own. */
  async releaseNow(sessionId: string): Promise<void> {
    await this.store.transaction((tx) => this.release(tx, sessionId));
  }

  /**
   * Asks the owner of `session` to run `call`. When the owner is gone its sessions are ended
   * `lost` first and the answer is `gone`; an error status of the owner is thrown as that error.
   * @throws ApiError 503 unavailable when the owner lives (holds its claim) but cannot be reached
   */
  async forward(session: Owned, call: PeerCall): Promise<Forwarded> {
    const ownerId = session.owner_id!;
    const owner = await this.store.view.get<OwnerRecord>(OWNERS, ownerId);
    if (owner) {
      let answer: { status: number; body: unknown } | undefined;
      try {
        answer = await this.peers.call({ url: owner.url, secret: owner.secret }, call);
      } catch {
        answer = undefined;
      }
      if (answer) {
        if (answer.status >= 400) throw ApiError.fromBody(answer.status, answer.body);
        return { kind: 'answered', body: answer.body };
      }
    }
    if (await this.endOwner(ownerId)) return { kind: 'gone' };
    throw new ApiError('unavailable', 'the process running this browser session cannot be reached; try again', undefined, { 'Retry-After': String(UNREACHABLE_RETRY_SECONDS) });
  }

  /**
   * Ends with `lost` every open session of another process whose claim can be taken (the
   * process is gone), and forgets that process. Answers the ids of this process's own slots, for
   * the caller to check against the browsers it runs.
   */
  async sweep(): Promise<OpenSlot[]> {
    const slots = await this.store.view.all<OpenSlot>(OPEN);
    const owners = new Set([...slots.map((slot) => slot.owner_id), ...(await this.store.view.all<OwnerRecord>(OWNERS)).map((owner) => owner.owner_id)]);
    owners.delete(this.self.id);
    for (const ownerId of owners) await this.endOwner(ownerId);
    return slots.filter((slot) => slot.owner_id === this.self.id);
  }

  /**
   * Ends the sessions of `ownerId` with `lost` and removes its record, when its claim can be
   * taken; answers false (and does nothing) while that process lives.
   */
  private async endOwner(ownerId: string): Promise<boolean> {
    // An advisory lock is re-entrant within one connection: this process must never "take" its own.
    if (ownerId === this.self.id) return false;
    const release = await this.shared.claim(claimName(ownerId));
    if (!release) return false;
    try {
      await this.store.transaction(async (tx) => {
        for (const slot of await tx.all<OpenSlot>(OPEN)) {
          if (slot.owner_id !== ownerId) continue;
          await this.endLost(tx, slot.session_id);
          await tx.remove(OPEN, slot.session_id);
        }
        if (await tx.get(OWNERS, ownerId)) await tx.remove(OWNERS, ownerId);
      });
    } finally {
      await release();
    }
    return true;
  }

  /** Holds this process's claim from its first session on (until it stops or dies). */
  private claimSelf(): Promise<ClaimRelease> {
    this.claimed ??= this.shared.claim(claimName(this.self.id)).then((release) => {
      if (!release) throw new Error(`browser owner ${this.self.id} is claimed by another process`);
      return release;
    });
    this.claimed.catch(() => (this.claimed = undefined));
    return this.claimed;
  }

  /** Gives the claim up (at stop): the other processes end this one's sessions on their next sweep. */
  async stop(): Promise<void> {
    const claimed = this.claimed;
    this.claimed = undefined;
    await (await claimed?.catch(() => undefined))?.();
  }
}
