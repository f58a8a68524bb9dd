import { href, html, type Html } from '../html.js';
import type { PageContext } from '../page-context.js';
import type { EventFilter } from '../event-filter.js';
import { TYPE_FILTER_CHOICES, matchesFilter } from '../event-filter.js';
import { agentById, agentNamed, lastEventSeq, recentEvents } from '../world-reads.js';
import { eventRow } from './event-row.js';

/** How many events the page opens with. */
const SHOWN = 100;

/** The filter of an events request (`type`, `agent` by name or id); `unknown` when the agent does not exist. */
export async function eventFilterOf(context: PageContext): Promise<{ filter: EventFilter; unknownAgent: boolean }> {
  const type = context.url.searchParams.get('type')?.trim() || undefined;
  const agent = context.url.searchParams.get('agent')?.trim() || undefined;
  if (!agent) return { filter: { type }, unknownAgent: false };
  const found = (await agentNamed(context.runtime, agent)) ?? (await agentById(context.runtime, agent));
  return { filter: { type, agentId: found?.agent_id ?? agent }, unknownAgent: !found };
}

/** The name shown for an event's agent. */
export function nameOf(context: PageContext): (agentId: string | null) => Promise<string> {
  return async (agentId) => (agentId ? ((await agentById(context.runtime, agentId))?.name ?? agentId) : '');
}

/** `/_dashboard/events`: the newest events that pass the filters, then every new one live over SSE. */
export async function eventsPage(context: PageContext): Promise<Html> {
  const { filter, unknownAgent } = await eventFilterOf(context);
  const type = context.url.searchParams.get('type') ?? '';
  const agent = context.url.searchParams.get('agent') ?? '';
  const last = await lastEventSeq(context.runtime);
  const events = unknownAgent ? [] : await recentEvents(context.runtime, (event) => matchesFilter(event, filter), SHOWN);
  const names = nameOf(context);
  const rows: Html[] = [];
  for (const event of events) rows.push(eventRow(event, await names(event.agent_id)));
  const body = html`<h1>Events <span class="count" id="event-count">${last}</span></h1>
<form class="filters" method="get" action="${href('/events')}">
  <label>Type <input type="search" name="type" value="${type}" placeholder="sms. or wallet.transaction.updated" list="event-types"></label>
  <label>Agent <input type="search" name="agent" value="${agent}" placeholder="name"></label>
  <button type="submit">Filter</button>
  ${type || agent ? html`<a href="${href('/events')}">clear</a>` : ''}
</form>
<datalist id="event-types">${TYPE_FILTER_CHOICES.map((choice) => html`<option value="${choice}"></option>`)}</datalist>
<p class="live-state muted small" data-stream="${href('/events/stream', { type, agent, after: String(last) })}"><span class="dot"></span> <span class="live-label">connecting…</span></p>
<ol class="events" id="event-list" reversed>${rows}</ol>
${events.length === 0 ? html`<p class="muted empty" id="no-events">${unknownAgent ? `No agent named ${agent}.` : 'No events match yet; new ones appear here as they happen.'}</p>` : ''}`;
  return context.page('Events', 'events', body);
}
