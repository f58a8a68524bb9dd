import type { ServiceEvent } from '../../core/ports/event-log.js';
import { areaOf } from '../event-filter.js';
import { href, html, type Html } from '../html.js';

/** A short line of what an event carries, for the row's summary (the full data is one click away). */
function gist(event: ServiceEvent): string {
  const data = event.data;
  const pick = ['status', 'subject', 'to', 'from', 'amount', 'asset', 'runtime', 'exit_code', 'handle', 'body', 'session_id'];
  const parts: string[] = [];
  for (const key of pick) {
    const value = data[key];
    if (value === undefined || value === null || typeof value === 'object') continue;
    const text = String(value);
    parts.push(`${key}: ${text.length > 60 ? `${text.slice(0, 57)}…` : text}`);
    if (parts.length === 4) break;
  }
  return parts.join(' · ');
}

/** One event as a list item: sequence, time, type, agent, a gist and the whole data. */
export function eventRow(event: ServiceEvent, agentName: string): Html {
  return html`<li class="event area-${areaOf(event.type).replace(/[^a-z0-9_-]/gi, '')}" data-seq="${event.seq}" data-type="${event.type}">
<div class="event-head"><span class="seq">#${event.seq}</span> <time datetime="${event.at}">${event.at.slice(11, 23)}</time> <strong class="event-type">${event.type}</strong>
${agentName ? html`<a class="event-agent" href="${href(`/agents/${encodeURIComponent(agentName)}`)}">${agentName}</a>` : html`<span class="muted">world</span>`}</div>
<details><summary>${gist(event) || 'data'}</summary><pre class="json">${JSON.stringify(event.data, null, 2)}</pre></details>
</li>`;
}
