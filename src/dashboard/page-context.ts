import type { AgentClient } from '../runtime/clients.js';
import type { AgentRecord } from '../core/identity/identity.service.js';
import type { Runtime } from '../runtime/create-runtime.js';
import { href, html, layout, type Html, type Shell } from './html.js';

/** What a page handler is given. */
export interface PageContext {
  runtime: Runtime;
  request: Request;
  url: URL;
  /** The whole page around `body`, with the navigation and the clock. */
  page(title: string, section: Shell['section'], body: Html): Html;
}

/** Builds the context of one request. */
export function pageContext(runtime: Runtime, request: Request): PageContext {
  const url = new URL(request.url);
  return {
    runtime,
    request,
    url,
    page: (title, section, body) => layout({ title, section, now: runtime.sim.clock().now, simulated: runtime.mode === 'simulated' }, body),
  };
}

/** An agent page's subject: the stored agent and a client acting as it. */
export interface AgentSubject {
  agent: AgentRecord;
  client: AgentClient;
}

/**
 * A section that reloads itself: when the event stream brings an event of one of `areas`
 * (`sms`, `wallet`, ...) or the clock is advanced, htmx fetches `?part=<id>` of the same page
 * and swaps the section for the answer.
 */
export function liveSection(context: PageContext, id: string, areas: string[], title: string, content: Html): Html {
  const url = new URL(context.url);
  url.searchParams.set('part', id);
  return html`<section id="${id}" class="card live" data-areas="${areas.join(' ')}" hx-get="${url.pathname}${url.search}" hx-trigger="world-change, dashboard-clock from:body" hx-swap="outerHTML">
<h2>${title}</h2>
${content}
</section>`;
}

/** The link to an agent's page (or one of its tabs). */
export function agentHref(name: string, tab = ''): string {
  return href(`/agents/${encodeURIComponent(name)}${tab ? `/${tab}` : ''}`);
}

/** One live section of a page: its id, the event areas that refresh it, its heading and its content. */
export interface SectionSpec {
  id: string;
  areas: string[];
  title: string;
  render(): Promise<Html> | Html;
}

/**
 * The sections of a page: all of them, or with `?part=<id>` only that one (what a live section
 * fetches to refresh itself). Undefined when `part` names no section.
 */
export async function renderSections(context: PageContext, sections: SectionSpec[]): Promise<{ part: boolean; html: Html } | undefined> {
  const part = context.url.searchParams.get('part');
  const chosen = part === null ? sections : sections.filter((section) => section.id === part);
  if (chosen.length === 0) return undefined;
  const rendered = await Promise.all(chosen.map(async (section) => liveSection(context, section.id, section.areas, section.title, await section.render())));
  return { part: part !== null, html: html`${rendered}` };
}
