import { ApiError } from '../../core/shared/api-error.js';
import { cell, href, html, notice, table } from '../html.js';
import { agentHref, type AgentSubject, type PageContext, type SectionSpec } from '../page-context.js';
import { recentMemories } from '../world-reads.js';

const LIMIT = 50;

function metadataText(metadata: Record<string, string>): string | null {
  const entries = Object.entries(metadata);
  return entries.length === 0 ? null : entries.map(([key, value]) => `${key}=${value}`).join(', ');
}

/** Memory tab: a search box that runs the agent's real search, its newest memories, its drive files. */
export function memorySections(context: PageContext, { agent, client }: AgentSubject): SectionSpec[] {
  const query = (context.url.searchParams.get('q') ?? '').trim();
  return [
    {
      id: 'search',
      areas: [],
      title: 'Search',
      async render() {
        const form = html`<form class="filters" method="get" action="${agentHref(agent.name, 'memory')}" role="search">
<label>Query <input type="search" name="q" value="${query}" placeholder="what the agent remembers about…" required></label>
<button type="submit">Search</button>
</form>`;
        if (!query) return form;
        try {
          const { memories } = await client.memory.search({ query, limit: 20 });
          return html`${form}${table(
            memories,
            [
              { label: 'Score', value: (row) => row.score.toFixed(3) },
              { label: 'Content', value: (row) => row.content },
              { label: 'Metadata', value: (row) => metadataText(row.metadata) },
              { label: 'Created', value: (row) => row.created_at },
            ],
            { empty: 'Nothing matches.', id: 'search-results' },
          )}`;
        } catch (error) {
          if (error instanceof ApiError) return html`${form}${notice('error', `${error.code}: ${error.message}`)}`;
          throw error;
        }
      },
    },
    {
      id: 'memories',
      areas: ['memory', 'file'],
      title: 'Memories',
      async render() {
        const { memories, total } = await recentMemories(context.runtime, agent.agent_id, LIMIT);
        return html`<p class="muted small">${total} in all${total > memories.length ? `, the newest ${memories.length} shown` : ''}</p>${table(
          memories,
          [
            { label: 'Content', value: (row) => row.content },
            { label: 'Metadata', value: (row) => metadataText(row.metadata) },
            { label: 'Created', value: (row) => row.created_at },
            { label: 'Id', value: (row) => row.id },
          ],
          { empty: 'No memories.', id: 'memories-table' },
        )}`;
      },
    },
    {
      id: 'files',
      areas: ['file'],
      title: 'Files',
      async render() {
        const { files, total } = await client.memory.listFiles({ limit: LIMIT });
        return html`<p class="muted small">${total} in all</p>${table(
          files,
          [
            {
              label: 'Name',
              value: (row) => row.name,
              render: (row) => html`<a href="${href(`/agents/${encodeURIComponent(agent.name)}/memory/files/${encodeURIComponent(row.file_id)}`)}" download="${row.name}">${row.name}</a>`,
            },
            { label: 'Size', value: (row) => `${row.size} bytes` },
            { label: 'Indexed', value: (row) => row.indexed, render: (row) => cell(row.indexed ? 'yes' : 'no') },
            { label: 'Uploaded', value: (row) => row.created_at },
          ],
          { empty: 'No files.' },
        )}`;
      },
    },
  ];
}
