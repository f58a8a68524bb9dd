import { ComputeConfig, computeConfig } from '../../core/compute/compute-config.js';
import { computeHandlers } from '../../core/compute/compute.handlers.js';
import { ComputeService } from '../../core/compute/compute.service.js';
import { FilesystemService } from '../../core/compute/filesystem.service.js';
import { Sandbox } from '../../core/ports/sandbox.js';
import { WasmSandbox } from '../../providers/sandbox/wasm-sandbox.js';
import type { AreaModule } from './area-module.js';

/** Compute: code runs in sandboxes over a persistent per-agent filesystem. */
export const computeArea: AreaModule = {
  name: 'compute',
  bind({ container, options }) {
    const compute = options.compute ?? {};
    const config = computeConfig(compute);
    container.bind(ComputeConfig).toConstantValue(config);
    const poolSize = compute.poolSize;
    container.bind(Sandbox).toConstantValue(
      options.providers?.sandbox ??
        new WasmSandbox({ memoryLimitBytes: config.memoryLimitBytes, ...(poolSize === undefined ? {} : { size: poolSize }) }),
    );
    container.bind(FilesystemService).toSelf();
    container.bind(ComputeService).toSelf();
  },
  start({ container }) {
    return computeHandlers(container.get(ComputeService), container.get(FilesystemService));
  },
};
