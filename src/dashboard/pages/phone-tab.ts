import type { Call } from '../../core/phone/phone.schema.js';
import { html, status, table, type Html } from '../html.js';
import type { AgentSubject, PageContext, SectionSpec } from '../page-context.js';

const LIMIT = 50;

/** What a call said, in order. */
function transcript(call: Call): Html {
  if (call.transcript.length === 0) return html`<span class="muted">–</span>`;
  return html`<details><summary>${call.transcript.length} line${call.transcript.length === 1 ? '' : 's'}</summary><ol class="transcript">${call.transcript.map(
    (line) => html`<li><time datetime="${line.at}">${line.at.slice(11, 19)}</time> ${line.text}</li>`,
  )}</ol></details>`;
}

/** SMS and calls tab: outbound SMS with their status, inbound SMS, calls with transcripts. */
export function phoneSections(_context: PageContext, { client }: AgentSubject): SectionSpec[] {
  return [
    {
      id: 'sms',
      areas: ['sms'],
      title: 'Sent SMS',
      async render() {
        const { messages } = await client.phone.listSms({ limit: LIMIT });
        return table(
          messages,
          [
            { label: 'To', value: (row) => row.to },
            { label: 'Body', value: (row) => row.body },
            { label: 'Status', value: (row) => row.status, render: (row) => html`${status(row.status)}${row.error_code ? html` <span class="muted">(${row.error_code})</span>` : ''}` },
            { label: 'Segments', value: (row) => `${row.num_segments} × ${row.encoding}` },
            { label: 'Sent', value: (row) => row.created_at },
            { label: 'Updated', value: (row) => row.updated_at },
            { label: 'Id', value: (row) => row.message_id },
          ],
          { empty: 'No SMS sent.', id: 'sms-table' },
        );
      },
    },
    {
      id: 'inbound',
      areas: ['sms'],
      title: 'Received SMS',
      async render() {
        const { messages } = await client.phone.listMessages({ limit: LIMIT });
        return table(
          messages,
          [
            { label: 'From', value: (row) => row.from },
            { label: 'Body', value: (row) => row.body },
            { label: 'Segments', value: (row) => row.num_segments },
            { label: 'Received', value: (row) => row.received_at },
          ],
          { empty: 'No SMS received.' },
        );
      },
    },
    {
      id: 'calls',
      areas: ['call'],
      title: 'Calls',
      async render() {
        const { calls } = await client.phone.listCalls({ limit: LIMIT });
        return table(
          calls,
          [
            { label: 'To', value: (row) => row.to },
            { label: 'Status', value: (row) => row.status, render: (row) => html`${status(row.status)}${row.failure_reason ? html` <span class="muted">(${row.failure_reason})</span>` : ''}` },
            { label: 'Duration', value: (row) => (row.duration_seconds === null ? null : `${row.duration_seconds} s`) },
            { label: 'Transcript', value: (row) => row.transcript.length, render: transcript },
            { label: 'Placed', value: (row) => row.created_at },
            { label: 'Ended', value: (row) => row.ended_at },
            { label: 'Id', value: (row) => row.call_id },
          ],
          { empty: 'No calls.' },
        );
      },
    },
  ];
}
