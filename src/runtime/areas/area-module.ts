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
}
