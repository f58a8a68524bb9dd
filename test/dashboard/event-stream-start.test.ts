// The dashboard's live stream joins its backlog and the live events without a gap: on a shared
// store live delivery may start past the backlog's last page (the log starts following when the
// first stream subscribes), and the events between are read before the live ones are sent.
import { describe, expect, it } from 'vitest';
import type { ServiceEvent } from '../../src/core/ports/event-log.js';
import { eventStream } from '../../src/dashboard/event-stream.js';
import type { Runtime } from '../../src/runtime/create-runtime.js';

function stored(seq: number): ServiceEvent {
  return { seq, type: 'agent.updated', agent_id: 'agt_a', at: '2026-01-01T00:00:00.000Z', data: { fields: ['name'] } };
}

describe('dashboard event stream', () => {
  it('reads the events between the backlog and the first live event before sending it', async () => {
    const log = [1, 2, 3, 4, 5, 6].map(stored);
    let listener: ((event: ServiceEvent) => void) | undefined;
    let reads = 0;
    const runtime = {
      sim: {
        lastEventSeq: async () => 3,
        subscribe: (next: (event: ServiceEvent) => void) => {
          listener = next;
          return () => {};
        },
        // The backlog's read sees the log up to 3; live delivery then starts at 6.
        events: async (after: number, limit: number) => {
          reads++;
          const end = reads === 1 ? 3 : 6;
          if (reads === 1) listener!(log[5]!);
          const events = log.filter((event) => event.seq > after && event.seq <= end).slice(0, limit);
          return { events, has_more: false };
        },
      },
    } as unknown as Runtime;
    const controller = new AbortController();
    const request = new Request('http://localhost/_dashboard/events', { signal: controller.signal });
    const response = eventStream(runtime, request, {}, 0, async () => 'a');
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('id: 6\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    controller.abort();
    expect([...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(text).not.toContain('event: reset');
  });
});
