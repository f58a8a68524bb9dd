// The conformance suite run by the project on itself, through the in-process clients (raw checks through runtime.fetch).
// Every check registers as one vitest test; a small number of fast-check runs keeps npm test quick.
import { afterAll, describe, it } from 'vitest';
import { registerConformance } from '../../src/conformance/index.js';
import { openConformanceWorld, type ConformanceWorld } from './targets.js';

let opened: Promise<ConformanceWorld> | undefined;

registerConformance(
  { describe, it, afterAll },
  {
    title: 'conformance (in-process)',
    seed: 20261123,
    runs: 3,
    timeoutMs: 120_000,
    target: async () => (await (opened = openConformanceWorld('in-process'))).target,
    close: async () => (await opened)?.world.close(),
  },
);
