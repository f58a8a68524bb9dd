import type { Browser, BrowserInstance, BrowserLaunchRequest } from '../../core/ports/browser.js';
import type { Clock } from '../../core/ports/clock.js';
import type { Faults } from '../../core/ports/faults.js';
import { currentRequest } from './request-context.js';
import { serviceTimePassed } from './service-time.js';

/**
 * `browser.navigate` faults on the navigation a session starts with (its `url`). `fail`: the
 * navigation fails with the fault's network error and the session is not created (500
 * internal_error); `delay`: the page loads after `delay_seconds` of service time.
 */
export class FaultingBrowser implements Pick<Browser, 'launch'> {
  constructor(
    private readonly inner: Browser,
    private readonly faults: Faults,
    private readonly clock: Clock,
  ) {}

  async launch(request: BrowserLaunchRequest): Promise<BrowserInstance> {
    if (request.url === null) return this.inner.launch(request);
    const struck = await this.faults.strikeNow('browser.navigate', {
      agent_id: currentRequest()?.agent_id ?? null,
      fields: { session_id: request.sessionId, url: request.url },
    });
    if (struck?.effect === 'fail') throw new Error(`${struck.error_code ?? 'net::ERR_CONNECTION_REFUSED'} at ${request.url} (injected fault ${struck.fault_id})`);
    if (struck?.effect === 'delay') await serviceTimePassed(this.clock, struck.delay_ms);
    return this.inner.launch(request);
  }
}
