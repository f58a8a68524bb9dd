import type { ServiceEvent } from '../core/ports/event-log.js';
import type { Runtime } from '../runtime/create-runtime.js';
import { areaOf, matchesFilter, type EventFilter } from './event-filter.js';
import { eventRow } from './pages/event-row.js';
import { lastEventSeq } from './world-reads.js';

/** A comment line sent this often keeps proxies and browsers from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;
/** Events sent at most from the backlog when a stream (re)starts. */
const BACKLOG = 1_000;

/**
 * The world's events as Server-Sent Events: every event after `after` that passes `filter`, first
 * the backlog, then each new one as soon as its change commits. Each message is `event: world`
 * with `id: <seq>` (so a reconnecting browser resumes by `Last-Event-ID`) and JSON data
 * `{seq, type, area, agent_id, html}`, where `html` is the event's row, escaped on the server.
 * The stream ends when the client goes away.
 */
export function eventStream(runtime: Runtime, request: Request, filter: EventFilter, after: number, names: (agentId: string | null) => Promise<string>): Response {
  const encoder = new TextEncoder();
  let stop = () => {};
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      let sent = Math.max(0, after);
      let open = true;
      // Messages leave in the order their events came, each after its agent's name is read.
      let output = Promise.resolve();
      const write = (message: string | (() => Promise<string>)) => {
        output = output
          .then(async () => {
            const text = typeof message === 'string' ? message : await message();
            if (open) controller.enqueue(encoder.encode(text));
          })
          // A failed read ends the stream; the browser reconnects from the last id it got.
          .catch(() => stop());
      };
      // Subscribe first and hold new events until the backlog is out, so none falls in between.
      const held: ServiceEvent[] = [];
      let live = false;
      let flushing = false;
      const send = (event: ServiceEvent) => {
        if (!open) return;
        if (event.seq <= sent) {
          // A live event at or below what was sent means the log was replaced (a restore): the
          // page's rows belong to another world, so it is told to reload.
          if (live) {
            sent = 0;
            write('event: reset\ndata: {}\n\n');
          } else return;
        }
        sent = event.seq;
        if (!matchesFilter(event, filter)) return;
        write(async () => {
          const data = JSON.stringify({ seq: event.seq, type: event.type, area: areaOf(event.type), agent_id: event.agent_id, html: String(eventRow(event, await names(event.agent_id))) });
          return `id: ${event.seq}\nevent: world\ndata: ${data}\n\n`;
        });
      };
      const unsubscribe = runtime.sim.subscribe((event) => (live || flushing ? send(event) : held.push(event)));
      const keepalive = setInterval(() => {
        if (open) controller.enqueue(encoder.encode(': keepalive\n\n'));
      }, KEEPALIVE_MS);
      stop = () => {
        if (!open) return;
        open = false;
        unsubscribe();
        clearInterval(keepalive);
        try {
          controller.close();
        } catch {
          // Already closed by the consumer.
        }
      };
      request.signal.addEventListener('abort', stop, { once: true });
      try {
        const last = await lastEventSeq(runtime);
        write(`retry: 2000\n: connected at seq ${last}\n\n`);
        if (sent < last - BACKLOG) sent = last - BACKLOG;
        if (request.signal.aborted) stop();
        while (open) {
          const page = await runtime.sim.events(sent, 200);
          for (const event of page.events as ServiceEvent[]) send(event);
          if (!page.has_more) break;
        }
      } catch {
        // The backlog could not be read: the stream ends and the browser tries again.
        stop();
        return;
      }
      try {
        // On a shared store live delivery starts where the log ended when this stream subscribed,
        // which may be past the backlog's last page: the events between are read too.
        while (open && held.length > 0 && held[0]!.seq > sent + 1) {
          const first = held[0]!.seq;
          const page = await runtime.sim.events(sent, 200);
          const before = (page.events as ServiceEvent[]).filter((event) => event.seq < first);
          for (const event of before) send(event);
          if (before.length < page.events.length || !page.has_more) break;
        }
      } catch {
        stop();
        return;
      }
      // Held events the backlog already carried are skipped (not taken for a restore).
      flushing = true;
      for (const event of held.splice(0)) send(event);
      flushing = false;
      live = true;
    },
    cancel() {
      stop();
    },
  });
  return new Response(body, {
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
  });
}
