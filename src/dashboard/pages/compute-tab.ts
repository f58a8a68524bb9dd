import { status, href, html, table } from '../html.js';
import type { AgentSubject, PageContext, SectionSpec } from '../page-context.js';
import { recentEvents } from '../world-reads.js';

const RUNS = 50;

/** The parent of an absolute path (`/` for `/`). */
function parentOf(path: string): string {
  const cut = path.replace(/\/+$/, '').lastIndexOf('/');
  return cut <= 0 ? '/' : path.slice(0, cut);
}

/** Compute tab: the agent's runs (from the event log: runtime and exit code) and its filesystem. */
export function computeSections(context: PageContext, { agent, client }: AgentSubject): SectionSpec[] {
  const path = context.url.searchParams.get('path') || '/';
  const base = `/agents/${encodeURIComponent(agent.name)}/compute`;
  return [
    {
      id: 'runs',
      areas: ['compute'],
      title: 'Runs',
      async render() {
        const runs = await recentEvents(context.runtime, (event) => event.agent_id === agent.agent_id && event.type === 'compute.run.completed', RUNS);
        return table(
          runs,
          [
            { label: 'When', value: (row) => row.at },
            { label: 'Runtime', value: (row) => row.data.runtime },
            { label: 'Exit code', value: (row) => row.data.exit_code, render: (row) => status(row.data.exit_code === 0 ? 'ok' : `exit-${String(row.data.exit_code)}`) },
            { label: 'Event', value: (row) => `#${row.seq}` },
          ],
          { empty: 'No runs yet.' },
        );
      },
    },
    {
      id: 'fs',
      areas: ['compute'],
      title: 'Files',
      async render() {
        const listing = await client.compute.listFs({ path }).catch(() => null);
        if (!listing) return html`<p class="muted empty">${path}: no such directory. <a href="${href(base)}">/</a></p>`;
        return html`<p class="path">Directory <strong>${listing.path}</strong>${listing.path !== '/' ? html` · <a href="${href(base, { path: parentOf(listing.path) })}">up</a>` : ''}</p>${table(
          listing.entries,
          [
            {
              label: 'Name',
              value: (row) => row.name,
              render: (row) =>
                row.type === 'directory' ? html`<a href="${href(base, { path: row.path })}">${row.name}/</a>` : html`<a href="${href(`${base}/file`, { path: row.path })}" download="${row.name}">${row.name}</a>`,
            },
            { label: 'Type', value: (row) => row.type },
            { label: 'Size', value: (row) => (row.type === 'file' ? `${row.size} bytes` : null) },
            { label: 'Modified', value: (row) => row.modified_at },
          ],
          { empty: 'Empty directory.' },
        )}`;
      },
    },
  ];
}
