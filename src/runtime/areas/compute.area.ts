import { ComputeConfig, computeConfig } from '../../core/compute/compute-config.js';
import { computeHandlers } from '../../core/compute/compute.handlers.js';
import { ComputeService } from '../../core/compute/compute.service.js';
import { FilesystemService } from '../../core/compute/filesystem.service.js';
import { Sandbox } from '../../core/ports/sandbox.js';
import { BubblewrapSandbox, bubblewrapUnavailable } from '../../providers/sandbox/bubblewrap-sandbox.js';
import { WasmSandbox } from '../../providers/sandbox/wasm-sandbox.js';
import { computeRoutes } from '../../core/compute/compute.routes.js';
import { defineArea } from './area-module.js';

/** Sandboxes the area made itself (a sandbox given as a provider belongs to its giver). */
const owned = new WeakMap<object, Sandbox>();

/** Compute: code runs in sandboxes over a persistent per-agent filesystem. */
export const computeArea = defineArea({
  name: 'compute',
  routes: computeRoutes,
  bind({ container, options }) {
    const compute = options.compute ?? {};
    const config = computeConfig(compute);
    container.bind(ComputeConfig).toConstantValue(config);
    const poolSize = compute.poolSize;
    let sandbox = options.providers?.sandbox;
    if (!sandbox) {
      const size = poolSize === undefined ? {} : { size: poolSize };
      if (compute.sandbox === 'bubblewrap') {
        const problem = bubblewrapUnavailable();
        if (problem) throw new Error(`compute.sandbox "bubblewrap": ${problem}`);
        sandbox = new BubblewrapSandbox(size);
      } else {
        sandbox = new WasmSandbox({ memoryLimitBytes: config.memoryLimitBytes, ...size });
      }
      owned.set(container, sandbox);
    }
    container.bind(Sandbox).toConstantValue(sandbox);
    container.bind(FilesystemService).toSelf();
    container.bind(ComputeService).toSelf();
  },
  start({ container }) {
    return computeHandlers(container.get(ComputeService), container.get(FilesystemService));
  },
  async stop({ container }) {
    // Ends running code and the worker pool; runs still queued answer exit 1.
    await owned.get(container)?.close();
  },
});
