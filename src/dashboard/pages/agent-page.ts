import { ApiError } from '../../core/shared/api-error.js';
import { fields, href, html, htmlResponse, type Html } from '../html.js';
import { agentHref, renderSections, type AgentSubject, type PageContext, type SectionSpec } from '../page-context.js';
import { agentNamed } from '../world-reads.js';
import { browserSections } from './browser-tab.js';
import { computeSections } from './compute-tab.js';
import { mailSections } from './mail-tab.js';
import { memorySections } from './memory-tab.js';
import { phoneSections } from './phone-tab.js';
import { walletSections } from './wallet-tab.js';

/** The tabs of an agent's page, in order. */
const TABS: Array<{ tab: string; label: string; sections: (context: PageContext, subject: AgentSubject) => SectionSpec[] }> = [
  { tab: '', label: 'Profile', sections: profileSections },
  { tab: 'wallet', label: 'Wallet', sections: walletSections },
  { tab: 'mail', label: 'Mail', sections: mailSections },
  { tab: 'phone', label: 'SMS & calls', sections: phoneSections },
  { tab: 'memory', label: 'Memory', sections: memorySections },
  { tab: 'compute', label: 'Compute', sections: computeSections },
  { tab: 'browser', label: 'Browser', sections: browserSections },
];

/** The agent named `name` as a page subject. @throws ApiError 404 not_found */
export async function subjectNamed(context: PageContext, name: string): Promise<AgentSubject> {
  const agent = await agentNamed(context.runtime, name);
  if (!agent) throw new ApiError('not_found', `no agent named ${name}`);
  return { agent, client: await context.runtime.actAs(agent.agent_id) };
}

/** The frame of every agent page: name, tabs, the event stream that keeps its sections live. */
export function agentFrame(context: PageContext, subject: AgentSubject, current: string, title: string, body: Html): Html {
  const name = subject.agent.name;
  const tabs = TABS.map(({ tab, label }) => html`<a href="${agentHref(name, tab)}"${tab === current ? html` aria-current="page"` : ''}>${label}</a>`);
  return context.page(
    `${name} · ${title}`,
    'agents',
    html`<div class="agent-head" data-stream="${href('/events/stream', { agent: name })}">
<h1>${subject.agent.display_name} <span class="muted handle">${subject.agent.handle}</span></h1>
<nav class="tabs" aria-label="agent sections">${tabs}</nav>
</div>
${body}`,
  );
}

/**
 * `/_dashboard/agents/{name}[/{tab}]`: one tab of an agent's page, or with `?part=` one of its
 * live sections. Undefined for an unknown tab.
 */
export async function agentTabPage(context: PageContext, name: string, tab: string): Promise<Response | undefined> {
  const spec = TABS.find((entry) => entry.tab === tab);
  if (!spec) return undefined;
  const subject = await subjectNamed(context, name);
  const rendered = await renderSections(context, spec.sections(context, subject));
  if (!rendered) return undefined;
  if (rendered.part) return htmlResponse(rendered.html);
  return htmlResponse(agentFrame(context, subject, tab, spec.label, rendered.html));
}

function profileSections(_context: PageContext, { client }: AgentSubject): SectionSpec[] {
  return [
    {
      id: 'profile',
      areas: ['agent', 'credential'],
      title: 'Profile',
      async render() {
        const [profile, phone, credentials] = await Promise.all([client.identity.getProfile(), client.phone.getNumber().catch(() => null), client.identity.listCredentials()]);
        return html`${fields([
          ['Agent id', profile.agent_id],
          ['Handle', profile.handle],
          ['Email', profile.email],
          ['Display name', profile.display_name],
          ['Bio', profile.bio],
          ['Avatar', profile.avatar_url],
          ['Reputation', profile.reputation],
          ['Phone', phone ? `${phone.phone_number} (${phone.country})` : null],
          ['Created', profile.created_at],
          ['Credentials', credentials.credentials.map((credential) => `${credential.credential_id} (${credential.format})`).join(', ')],
        ])}`;
      },
    },
  ];
}
