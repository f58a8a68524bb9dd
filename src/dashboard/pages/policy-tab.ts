import { POLICIES, type PolicyRecord } from '../../core/policy/policy.service.js';
import { utcDay } from '../../core/policy/policy-rules.js';
import { fields, html, json, table } from '../html.js';
import type { AgentSubject, PageContext, SectionSpec } from '../page-context.js';
import { recentEvents } from '../world-reads.js';

/** Refusals listed. */
const VIOLATIONS = 50;

/**
 * Policy tab: the guardrails the operator set (the document as `GET /v1/agent/policy` shows it to
 * the agent), what the agent used of today's limits, and its recent refusals (`policy.violated`).
 */
export function policySections(context: PageContext, { agent, client }: AgentSubject): SectionSpec[] {
  return [
    {
      id: 'policy',
      areas: ['policy', 'wallet', 'email', 'sms', 'call', 'compute'],
      title: 'Policy',
      async render() {
        const [{ policy }, record] = await Promise.all([client.policy.get(), context.runtime.view.get<PolicyRecord>(POLICIES, agent.agent_id)]);
        const usage = record && record.usage.day === utcDay(Date.parse(context.runtime.sim.clock().now)) ? record.usage : undefined;
        const sent = Object.entries(usage?.sent ?? {}).map(([asset, minor]) => `${asset} ${minor} (minor units)`);
        return html`${policy === null ? html`<p class="muted empty">No policy: the agent's key may do everything the API allows.</p>` : json(policy)}
<h3>Today${usage ? ` (UTC day ${usage.day})` : ''}</h3>
${fields([
  ['Sent', sent.length > 0 ? sent.join(', ') : 'nothing'],
  ['Mail sent', usage?.email ?? 0],
  ['SMS accepted', usage?.sms ?? 0],
  ['Calls accepted', usage?.calls ?? 0],
  ['Runs started', usage?.runs ?? 0],
])}`;
      },
    },
    {
      id: 'violations',
      areas: ['policy'],
      title: 'Refusals',
      async render() {
        const refused = await recentEvents(context.runtime, (event) => event.agent_id === agent.agent_id && event.type === 'policy.violated', VIOLATIONS);
        return table(
          refused,
          [
            { label: 'When', value: (row) => row.at },
            { label: 'Rule', value: (row) => row.data.rule },
            { label: 'Route', value: (row) => row.data.route_id },
            { label: 'Field', value: (row) => row.data.param },
            { label: 'Event', value: (row) => `#${row.seq}` },
          ],
          { empty: 'No refusals.' },
        );
      },
    },
  ];
}
