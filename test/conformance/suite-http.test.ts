// The conformance suite run by the project on itself, over a real HTTP server on 127.0.0.1.
// Every check registers as one vitest test; a small number of fast-check runs keeps npm test quick.
import { afterAll, describe, it } from 'vitest';
import { registerConformance } from '../../src/conformance/index.js';
import { openConformanceWorld, type ConformanceWorld } from './targets.js';

let opened: Promise<ConformanceWorld> | undefined;

registerConformance(
  { describe, it, afterAll },
  {
    title: 'conformance (http)',
    seed: 20261123,
    runs: 3,
    timeoutMs: 120_000,
    target: async () => (await (opened = openConformanceWorld('http'))).target,
    close: async () => (await opened)?.world.close(),
  },
);
