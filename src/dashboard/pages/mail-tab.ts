import type { EmailMessage, EmailSummary } from '../../core/email/email.schema.js';
import { cell, fields, href, html, table, type Html } from '../html.js';
import { agentHref, type AgentSubject, type PageContext, type SectionSpec } from '../page-context.js';
import { peekMessage } from '../world-reads.js';

const LIMIT = 100;

/** A thread as the list shows it: its newest message and how many of the agent's copies it has. */
interface ThreadRow {
  thread_id: string;
  latest: EmailSummary;
  count: number;
  unread: number;
  attachments: boolean;
}

function threadsOf(messages: EmailSummary[]): ThreadRow[] {
  const threads = new Map<string, ThreadRow>();
  for (const message of messages) {
    const row = threads.get(message.thread_id);
    if (!row) threads.set(message.thread_id, { thread_id: message.thread_id, latest: message, count: 1, unread: message.read ? 0 : 1, attachments: message.has_attachments });
    else {
      row.count += 1;
      row.unread += message.read ? 0 : 1;
      row.attachments ||= message.has_attachments;
      if (message.received_at > row.latest.received_at) row.latest = message;
    }
  }
  return [...threads.values()].sort((a, b) => (a.latest.received_at < b.latest.received_at ? 1 : -1));
}

/** One full message: headers, text, the HTML source (shown as text, never rendered) and attachments. */
function messageView(name: string, message: EmailMessage): Html {
  return html`<article class="message" id="message-${message.id}">
<h3>${message.subject || '(no subject)'} <span class="muted small">${message.folder}</span></h3>
${fields([
  ['From', message.from],
  ['To', message.to.join(', ')],
  ...(message.cc.length > 0 ? [['Cc', message.cc.join(', ')] as [string, unknown]] : []),
  ...(message.bcc.length > 0 ? [['Bcc', message.bcc.join(', ')] as [string, unknown]] : []),
  ['Received', message.received_at],
  ['Read', message.read],
  ['Id', message.id],
])}
${message.text !== null ? html`<pre class="mail-text">${message.text}</pre>` : ''}
${message.html !== null ? html`<details><summary>HTML part (source)</summary><pre class="mail-text">${message.html}</pre></details>` : ''}
${
  message.attachments.length > 0
    ? html`<ul class="attachments">${message.attachments.map(
        (attachment) =>
          html`<li><a href="${agentHref(name, `mail/attachments/${encodeURIComponent(attachment.attachment_id)}`)}" download="${attachment.filename}">${attachment.filename}</a> <span class="muted small">${attachment.content_type}, ${attachment.size} bytes</span></li>`,
      )}</ul>`
    : ''
}
<details><summary>Headers</summary><pre class="json">${Object.entries(message.headers)
    .map(([key, value]) => `${key}: ${value}`)
    .join('\n')}</pre></details>
</article>`;
}

/** Mail tab: the agent's threads (inbox and sent together), and with `?thread=` the thread's messages in full. */
export function mailSections(context: PageContext, { agent, client }: AgentSubject): SectionSpec[] {
  const threadId = context.url.searchParams.get('thread');
  const sections: SectionSpec[] = [];
  if (threadId) {
    sections.push({
      id: 'thread',
      areas: ['email'],
      title: 'Thread',
      async render() {
        const [inbox, sent] = await Promise.all([client.email.list({ folder: 'inbox', thread_id: threadId, limit: LIMIT }), client.email.list({ folder: 'sent', thread_id: threadId, limit: LIMIT })]);
        const summaries = [...inbox.messages, ...sent.messages].sort((a, b) => (a.received_at < b.received_at ? -1 : 1));
        // Read without the API's side effect: the dashboard must not mark the agent's mail read.
        const messages: EmailMessage[] = [];
        for (const summary of summaries) {
          const message = await peekMessage(context.runtime, agent.agent_id, summary.id);
          if (message !== undefined) messages.push(message);
        }
        if (messages.length === 0) return html`<p class="muted empty">No messages in this thread.</p>`;
        return html`<p><a href="${agentHref(agent.name, 'mail')}">← all threads</a> <span class="muted small">${threadId}</span></p>${messages.map((message) => messageView(agent.name, message))}`;
      },
    });
  }
  sections.push({
    id: 'threads',
    areas: ['email'],
    title: 'Threads',
    async render() {
      const [inbox, sent] = await Promise.all([client.email.list({ folder: 'inbox', limit: LIMIT }), client.email.list({ folder: 'sent', limit: LIMIT })]);
      const threads = threadsOf([...inbox.messages, ...sent.messages]);
      return table(
        threads,
        [
          {
            label: 'Subject',
            value: (row) => row.latest.subject,
            render: (row) =>
              html`<a href="${href(`/agents/${encodeURIComponent(agent.name)}/mail`, { thread: row.thread_id })}">${row.latest.subject || '(no subject)'}</a><div class="muted small">${row.latest.snippet}</div>`,
          },
          { label: 'Latest from', value: (row) => row.latest.from },
          { label: 'To', value: (row) => row.latest.to.join(', ') },
          {
            label: 'Messages',
            value: (row) => row.count,
            render: (row) =>
              html`${cell(row.count)}${row.unread > 0 ? html` <span class="status status-unread">${row.unread} unread</span>` : ''}${row.attachments ? html` <span class="muted small">+ attachments</span>` : ''}`,
          },
          { label: 'Last', value: (row) => row.latest.received_at },
        ],
        { empty: 'No mail yet.', id: 'threads-table' },
      );
    },
  });
  return sections;
}
