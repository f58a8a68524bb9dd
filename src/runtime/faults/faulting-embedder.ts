import type { Clock } from '../../core/ports/clock.js';
import type { Embedder } from '../../core/ports/embedder.js';
import type { Faults } from '../../core/ports/faults.js';
import { currentRequest } from './request-context.js';
import { serviceTimePassed } from './service-time.js';

/**
 * `embedder.embed` faults around any embedder. `fail`: the provider errors, so the memory call
 * answers 500 internal_error and stores nothing; `delay`: the vectors come back after
 * `delay_seconds` of service time.
 */
export class FaultingEmbedder implements Embedder {
  constructor(
    private readonly inner: Embedder,
    private readonly faults: Faults,
    private readonly clock: Clock,
  ) {}

  get model(): string {
    return this.inner.model;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const request = currentRequest();
    const struck = await this.faults.strikeNow('embedder.embed', {
      agent_id: request?.agent_id ?? null,
      fields: { model: this.inner.model, texts: texts.length, route: request?.route ?? null },
    });
    if (struck?.effect === 'fail') throw new Error(`the embedding provider failed (injected fault ${struck.fault_id})`);
    if (struck?.effect === 'delay') await serviceTimePassed(this.clock, struck.delay_ms);
    return this.inner.embed(texts);
  }
}
