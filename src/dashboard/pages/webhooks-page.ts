import { ApiError } from '../../core/shared/api-error.js';
import { href, html, notice, status, table, type Html } from '../html.js';
import { renderSections, type PageContext } from '../page-context.js';

/** `/_dashboard/webhooks`: deliveries with their attempts, by endpoint and status, live. */
export async function webhooksPage(context: PageContext): Promise<{ part: boolean; html: Html } | undefined> {
  const statusFilter = context.url.searchParams.get('status') || undefined;
  const webhookId = context.url.searchParams.get('webhook_id') || undefined;
  const cursor = context.url.searchParams.get('cursor') || undefined;
  const sim = context.runtime.simClient();
  const rendered = await renderSections(context, [
    {
      id: 'deliveries',
      areas: ['*'],
      title: 'Deliveries',
      async render() {
        try {
          const page = await sim.webhookDeliveries({
            limit: 100,
            ...(statusFilter ? { status: statusFilter as 'pending' } : {}),
            ...(webhookId ? { webhook_id: webhookId } : {}),
            ...(cursor ? { cursor } : {}),
          });
          return html`${table(
            page.deliveries,
            [
              { label: 'Event', value: (row) => row.type, render: (row) => html`<strong>${row.type}</strong><div class="muted small">${row.event_id}</div>` },
              { label: 'Endpoint', value: (row) => row.url, render: (row) => html`${row.url}<div class="muted small"><a href="${href('/webhooks', { webhook_id: row.webhook_id })}">${row.webhook_id}</a></div>` },
              { label: 'Status', value: (row) => row.status, render: (row) => status(row.status) },
              { label: 'Attempts', value: (row) => row.attempts },
              { label: 'Last answer', value: (row) => row.last_response_status },
              { label: 'Next attempt', value: (row) => row.next_attempt_at },
              { label: 'Delivery', value: (row) => row.delivery_id },
            ],
            { empty: 'No deliveries: register an endpoint with POST /v1/webhooks, or start the server with --webhook.', id: 'deliveries-table' },
          )}
${page.next_cursor ? html`<p><a href="${href('/webhooks', { status: statusFilter, webhook_id: webhookId, cursor: page.next_cursor })}">older deliveries →</a></p>` : ''}`;
        } catch (error) {
          if (error instanceof ApiError) return notice('error', `${error.code}: ${error.message}`);
          throw error;
        }
      },
    },
  ]);
  if (!rendered || rendered.part) return rendered;
  const option = (value: string, label: string) => html`<option value="${value}"${statusFilter === value ? html` selected` : ''}>${label}</option>`;
  const body = html`<h1>Webhook deliveries</h1>
<form class="filters" method="get" action="${href('/webhooks')}">
  <label>Status <select name="status">${option('', 'any')}${option('pending', 'pending')}${option('delivered', 'delivered')}${option('failed', 'failed')}</select></label>
  <label>Endpoint <input type="search" name="webhook_id" value="${webhookId ?? ''}" placeholder="wh_…"></label>
  <button type="submit">Filter</button>
</form>
<div data-stream="${href('/events/stream', { after: 'now' })}">${rendered.html}</div>`;
  return { part: false, html: context.page('Webhooks', 'webhooks', body) };
}
