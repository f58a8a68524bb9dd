import { html, status, table } from '../html.js';
import type { AgentSubject, PageContext, SectionSpec } from '../page-context.js';

/** Browser tab: the agent's sessions, newest first (the DevTools endpoint is left out: it carries the session's secret). */
export function browserSections(_context: PageContext, { client }: AgentSubject): SectionSpec[] {
  return [
    {
      id: 'sessions',
      areas: ['browser'],
      title: 'Browser sessions',
      async render() {
        const { sessions } = await client.browser.listSessions({ limit: 50 });
        return table(
          sessions,
          [
            { label: 'Id', value: (row) => row.session_id },
            { label: 'Status', value: (row) => row.status, render: (row) => html`${status(row.status)}${row.terminated_reason ? html` <span class="muted">(${row.terminated_reason})</span>` : ''}` },
            { label: 'URL', value: (row) => row.url },
            { label: 'Viewport', value: (row) => `${row.viewport.width}×${row.viewport.height}` },
            { label: 'Created', value: (row) => row.created_at },
            { label: 'Last activity', value: (row) => row.last_activity_at },
            { label: 'Expires', value: (row) => (row.status === 'open' ? row.expires_at : null) },
            { label: 'Ended', value: (row) => row.terminated_at },
          ],
          { empty: 'No browser sessions.' },
        );
      },
    },
  ];
}
