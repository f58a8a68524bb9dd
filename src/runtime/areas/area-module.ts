import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Container } from 'inversify';
import type { z } from 'zod';
import type { BoundRoute } from '../../core/api/route.js';
import type { RouteTable } from '../../core/api/route-client.js';
import type { RuntimeOptions } from '../runtime-options.js';

/** What an area module is given while the runtime is composed. */
export interface AreaContext {
  container: Container;
  options: RuntimeOptions;
  mode: 'simulated' | 'live';
  seed: number | string;
}

/**
 * How one area (identity, wallet, email, ...) plugs into the runtime. It declares its route tables
 * and agent-creation fields (from which the runtime derives the `AgentClient` namespace, the flat
 * `SimClient` methods, the MCP tools and the body of `POST /_sim/agents`), binds its services and
 * default providers, then, once every area is bound, wires its hooks and job handlers and answers
 * exactly the routes it declared. Adding an area is its folder, its module, and one entry in `AREAS`.
 */
export interface AreaModule<Name extends string = string, Routes extends RouteTable = RouteTable, SimRoutes extends RouteTable = RouteTable, CreationFields extends z.ZodRawShape = z.ZodRawShape> {
  /** The area's name, which is also its `AgentClient` namespace (`client.wallet`). */
  name: Name;
  /** Its agent-facing routes (`/v1`), keyed by the route id's action (none for a control-plane-only area such as faults). */
  routes?: Routes;
  /** Its control-plane routes (`/_sim`, ids `sim.<action>`, actions unique across areas). */
  simRoutes?: SimRoutes;
  /** Fields it adds to the body of `POST /_sim/agents`, read back in its `onAgentCreated` hook. */
  creationFields?: CreationFields;
  /** Binds the area's services and providers into the container. */
  bind(context: AreaContext): void;
  /**
   * Wires hooks and job handlers and returns its routes bound to handlers (after every area is
   * bound): exactly those of `routes` and `simRoutes`, which the runtime checks.
   */
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
  | {
      kind: 'http';
      prefix: string;
      fetch(request: Request): Promise<Response>;
      /** Largest request body this edge takes, in bytes (default: the runtime's `maxBodyBytes`). */
      maxBodyBytes?: number;
    }
  | { kind: 'upgrade'; prefix: string; upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void }
  | { kind: 'listener'; name: string; listen(): Promise<ListeningEdge> };

/**
 * Declares an area module keeping its literal types (route tables, creation fields), from which
 * the clients and the agent-creation body are typed.
 */
export function defineArea<const Name extends string, Routes extends RouteTable = never, SimRoutes extends RouteTable = {}, CreationFields extends z.ZodRawShape = {}>(
  area: AreaModule<Name, Routes, SimRoutes, CreationFields>,
): AreaModule<Name, Routes, SimRoutes, CreationFields> {
  return area;
}
