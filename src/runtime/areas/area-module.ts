import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Container } from 'inversify';
import type { BoundRoute } from '../../core/api/route.js';
import type { RuntimeOptions } from '../runtime-options.js';

/** What an area module is given while the runtime is composed. */
export interface AreaContext {
  container: Container;
  options: RuntimeOptions;
  mode: 'simulated' | 'live';
  seed: number | string;
}

/**
 * How one area (identity, wallet, email, ...) plugs into the runtime: it binds its services and
 * default providers, then, once every area is bound, wires its hooks and job handlers and answers
 * its routes. Adding an area is one entry in `AREAS`.
 */
export interface AreaModule {
  name: string;
  /** Binds the area's services and providers into the container. */
  bind(context: AreaContext): void;
  /** Wires hooks and job handlers and returns the area's routes (after every area is bound). */
  start(context: AreaContext): BoundRoute[];
  /** Called after a restore replaced the whole state, to drop state derived from the old one (indexes, caches). */
  restored?(context: AreaContext): void;
  /**
   * Ends the area's long-lived work (sessions, sandboxes, worker pools, listeners, sockets).
   * `runtime.close()` calls it once, in reverse area order, after the call signals are aborted.
   */
  stop?(context: AreaContext): Promise<void>;
  /** Inbound edges the area answers itself (hosted pages, provider callbacks, WebSockets, listeners such as SMTP). */
  edges?(context: AreaContext): AreaEdge[];
}

/** A listener edge that listens: where, under its name. */
export interface ListeningEdge {
  /** The edge's name (`smtp`). */
  name: string;
  host: string;
  port: number;
}

/**
 * A way into an area that is not a /v1 route: the HTTP server sends every request whose path
 * starts with `prefix` to an `http` edge, and every WebSocket upgrade under `prefix` to an
 * `upgrade` edge. `runtime.fetch` answers http edges too. A `listener` edge owns its own socket
 * (the SMTP listener): `runtime.listen()` (which `serve` calls) starts it once, and the area's
 * `stop()` closes it.
 */
export type AreaEdge =
  | { kind: 'http'; prefix: string; fetch(request: Request): Promise<Response> }
  | { kind: 'upgrade'; prefix: string; upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void }
  | { kind: 'listener'; name: string; listen(): Promise<ListeningEdge> };
