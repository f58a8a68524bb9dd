import type { Clock } from '../../core/ports/clock.js';
import type { Faults } from '../../core/ports/faults.js';
import type { Sandbox, SandboxRequest, SandboxResult } from '../../core/ports/sandbox.js';
import { currentRequest } from './request-context.js';
import { serviceTimePassed } from './service-time.js';

/**
 * `sandbox.run` faults around any sandbox. `fail`: the sandbox dies under the run (exit code 137
 * unless the fault says otherwise, nothing kept); `delay`: the run starts after `delay_seconds`
 * of service time, which its `duration_ms` includes; `drop`: the run never answers and ends by
 * its own timeout (exit 124, nothing kept) once `timeout_seconds` of service time have passed.
 */
export class FaultingSandbox implements Sandbox {
  constructor(
    private readonly inner: Sandbox,
    private readonly faults: Faults,
    private readonly clock: Clock,
  ) {}

  get kind(): string {
    return this.inner.kind;
  }

  async run(request: SandboxRequest): Promise<SandboxResult> {
    const context = currentRequest();
    const struck = await this.faults.strikeNow('sandbox.run', {
      agent_id: context?.agent_id ?? null,
      fields: { runtime: request.runtime, timeout_seconds: request.timeoutSeconds, route: context?.route ?? null },
    });
    if (!struck) return this.inner.run(request);
    if (struck.effect === 'fail') {
      return { stdout: '', stderr: 'the sandbox failed: its host went away during the run\n', exitCode: Number(struck.error_code ?? '137'), durationMs: 0, changes: null };
    }
    if (struck.effect === 'drop') {
      await serviceTimePassed(this.clock, request.timeoutSeconds * 1000);
      return { stdout: '', stderr: `timed out after ${request.timeoutSeconds} s\n`, exitCode: 124, durationMs: request.timeoutSeconds * 1000, changes: null };
    }
    await serviceTimePassed(this.clock, struck.delay_ms);
    const result = await this.inner.run(request);
    return { ...result, durationMs: result.durationMs + struck.delay_ms };
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
