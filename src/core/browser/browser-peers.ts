import type { ServiceIdentifier } from '../shared/di.js';

/** This process as the owner of browser sessions in a world that other processes serve too. */
export interface BrowserOwnerSelf {
  /** Unique to this process's lifetime, never reused. */
  readonly id: string;
  /** What another process presents to call this one (kept in the world, shown on no API). */
  readonly secret: string;
  /** This process's advertised URL (`--advertise-url`, default its listen URL). */
  url(): string;
}

/** What one process asks of the process that owns a session. */
export interface PeerCall {
  /** `activity` asks for the latest activity the owner noted (for an idle check run elsewhere). */
  op: 'show' | 'screenshot' | 'delete' | 'activity';
  session_id: string;
  agent_id: string;
  /** The asking process's service time: the call is activity no earlier (the owner's clock may lag). */
  at_ms?: number;
}

/** Where an owner is reached and how it recognises its peers. */
export interface PeerAddress {
  url: string;
  secret: string;
}

/**
 * The link between the processes of one world for browser sessions, which live in the process
 * that opened them. In a world of one process (memory or SQLite store) `self` is undefined and
 * nothing is ever forwarded.
 */
export interface BrowserPeers {
  readonly self: BrowserOwnerSelf | undefined;
  /**
   * Sends `call` to the owner; answers its HTTP status and JSON body.
   * @throws Error when no answer came (the owner is down or cannot be reached)
   */
  call(owner: PeerAddress, call: PeerCall): Promise<{ status: number; body: unknown }>;
}

/** Injection token of {@link BrowserPeers}. */
export const BrowserPeers = Symbol.for('agent-services/BrowserPeers') as ServiceIdentifier<BrowserPeers>;

/** Path of the internal edge through which processes of one world forward session calls. */
export const PEER_PATH = '/_peer/browser';
