import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

export { html, raw };

/** HTML that is safe to send: hono's `html` template escapes every interpolated value that is not itself such HTML. */
export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** Security headers of every dashboard page: scripts and styles only from the dashboard itself, no framing. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** An HTML answer. */
export async function htmlResponse(body: Html, init: { status?: number; headers?: Record<string, string> } = {}): Promise<Response> {
  return new Response(String(await body), { status: init.status ?? 200, headers: { ...PAGE_HEADERS, ...init.headers } });
}

/** What the shell needs to know about the page it wraps. */
export interface Shell {
  title: string;
  /** Which top-level section is current, for the navigation. */
  section: 'agents' | 'events' | 'webhooks' | 'snapshot';
  /** The service time, shown with the advance buttons. */
  now: string;
  /** Whether the clock can be advanced (a simulated clock). */
  simulated: boolean;
}

/** A link under the dashboard. */
export function href(path: string, query: Record<string, string | undefined> = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') search.set(name, value);
  const text = search.toString();
  return `/_dashboard${path}${text ? `?${text}` : ''}`;
}

/** The clock and its advance buttons (also answered alone after an advance). */
export function clockWidget(now: string, simulated: boolean): Html {
  const step = (seconds: number, label: string) => html`<button type="submit" name="seconds" value="${seconds}" title="advance the clock by ${label}">+${label}</button>`;
  return html`<form id="clock" class="clock" hx-post="${href('/clock/advance')}" hx-target="#clock" hx-swap="outerHTML" method="post" action="${href('/clock/advance')}">
  <span class="clock-now" title="service time"><time id="clock-now" datetime="${now}">${now.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time></span>
  ${simulated ? html`<span class="clock-steps">${step(1, '1s')}${step(10, '10s')}${step(60, '1m')}${step(3600, '1h')}${step(86_400, '1d')}</span>` : html`<span class="muted">real time</span>`}
</form>`;
}

/** The whole page around `body`. */
export function layout(shell: Shell, body: Html): Html {
  const nav = (section: Shell['section'], path: string, label: string) => html`<a href="${href(path)}"${shell.section === section ? raw(' aria-current="page"') : ''}>${label}</a>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="htmx-config" content='{"includeIndicatorStyles": false, "allowEval": false, "allowScriptTags": false}'>
<title>${shell.title} · agent-services</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${href('/assets/dashboard.css')}">
<script src="${href('/assets/htmx.min.js')}" defer></script>
<script src="${href('/assets/dashboard.js')}" defer></script>
</head>
<body>
<header class="top">
  <a class="brand" href="${href('')}">agent-services</a>
  <nav>${nav('agents', '', 'Agents')}${nav('events', '/events', 'Events')}${nav('webhooks', '/webhooks', 'Webhooks')}${nav('snapshot', '/snapshot', 'Snapshot')}</nav>
  ${clockWidget(shell.now, shell.simulated)}
</header>
<main>
${body}
</main>
</body>
</html>`;
}

/** A value for a table cell: strings as they are, null as a dash, the rest as JSON. */
export function cell(value: unknown): Html {
  if (value === null || value === undefined) return html`<span class="muted">–</span>`;
  if (typeof value === 'string') return html`${value}`;
  if (typeof value === 'number' || typeof value === 'boolean') return html`${String(value)}`;
  return html`<code>${JSON.stringify(value)}</code>`;
}

/** A status word with a class per value, so a status reads at a glance. */
export function status(value: string | null | undefined): Html {
  if (!value) return cell(null);
  return html`<span class="status status-${value.replace(/[^a-z0-9-]/gi, '')}">${value}</span>`;
}

/** A list of objects as a table of the given columns; cells render with `render` or {@link cell}. */
export function table<T extends object>(
  rows: readonly T[],
  columns: Array<{ label: string; value: (row: T) => unknown; render?: (row: T) => Html }>,
  options: { empty: string; id?: string } = { empty: 'nothing yet' },
): Html {
  if (rows.length === 0) return html`<p class="muted empty">${options.empty}</p>`;
  return html`<div class="table-wrap"><table${options.id ? raw(` id="${options.id}"`) : ''}>
<thead><tr>${columns.map((column) => html`<th>${column.label}</th>`)}</tr></thead>
<tbody>${rows.map((row) => html`<tr>${columns.map((column) => html`<td data-label="${column.label}">${column.render ? column.render(row) : cell(column.value(row))}</td>`)}</tr>`)}</tbody>
</table></div>`;
}

/** An object's fields as a definition list. */
export function fields(entries: Array<[string, unknown] | [string, unknown, Html]>): Html {
  return html`<dl class="fields">${entries.map(([label, value, rendered]) => html`<dt>${label}</dt><dd>${rendered ?? cell(value)}</dd>`)}</dl>`;
}

/** JSON, pretty-printed and escaped. */
export function json(value: unknown): Html {
  return html`<pre class="json">${JSON.stringify(value, null, 2)}</pre>`;
}

/** A message box. */
export function notice(kind: 'error' | 'ok', text: string): Html {
  return html`<p class="notice notice-${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>`;
}
