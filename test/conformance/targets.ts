// The conformance suite's targets for the project's own tests: one runtime reached in each of the
// three ways (in-process clients, fetch against the dispatch, a real HTTP server).
import { controlPlaneOf, httpTarget, type ConformanceTarget } from '../../src/conformance/index.js';
import type { RuntimeOptions } from '../../src/index.js';
import { IN_PROCESS_BASE_URL, openWorld, type TransportKind, type World } from '../support/transports.js';

/** Runtime options of every conformance world: the simulated browser, so no Chromium starts. */
export const CONFORMANCE_RUNTIME: RuntimeOptions = { seed: 7, browser: { provider: 'simulated' } };

/** A world and the conformance target that reaches it. */
export interface ConformanceWorld {
  world: World;
  target: ConformanceTarget;
}

/**
 * Opens a runtime reached one way and its target: in-process uses the runtime's own clients (raw
 * requests through `runtime.fetch`, for header checks); fetch and http go through `httpTarget`,
 * which also checks every answer's wire form.
 */
export async function openConformanceWorld(kind: TransportKind, options: RuntimeOptions = CONFORMANCE_RUNTIME): Promise<ConformanceWorld> {
  const world = await openWorld(kind, options);
  if (kind === 'in-process') {
    const raw = (path: string, init?: RequestInit) => world.runtime.fetch(new Request(IN_PROCESS_BASE_URL + path, init));
    return { world, target: { agent: (key) => world.agent(key), control: controlPlaneOf(world.sim, raw), fetch: raw, description: 'in-process', reachesLoopback: true } };
  }
  const fetchVia = kind === 'fetch' ? { fetch: (request: Request) => world.runtime.fetch(request) } : {};
  // Through runtime.fetch the base URL is a placeholder, but the runtime runs here and reaches 127.0.0.1.
  return { world, target: { ...httpTarget({ baseUrl: world.baseUrl, ...fetchVia }), reachesLoopback: true } };
}
