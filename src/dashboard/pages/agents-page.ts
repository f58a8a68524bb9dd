import { href, html, table, type Html } from '../html.js';
import { agentHref, type PageContext } from '../page-context.js';
import { listAgents } from '../world-reads.js';

/** How many agents the list shows at most (a name filter narrows it). */
const MAX_LISTED = 500;

/** `/_dashboard`: every agent with its profile, number and balances, filtered by name. */
export async function agentsPage(context: PageContext): Promise<Html> {
  const { runtime, url } = context;
  const filter = (url.searchParams.get('q') ?? '').trim().toLowerCase();
  const all = await listAgents(runtime);
  const matching = filter ? all.filter((agent) => agent.name.includes(filter) || agent.display_name.toLowerCase().includes(filter)) : all;
  const shown = matching.slice(-MAX_LISTED).reverse();
  const rows = await Promise.all(
    shown.map(async (agent) => {
      const client = await runtime.actAs(agent.agent_id);
      const [profile, phone, balance] = await Promise.all([client.identity.getProfile(), client.phone.getNumber().catch(() => null), client.wallet.getBalance()]);
      const held = [...Object.entries(balance.fiat), ...Object.entries(balance.crypto)].filter(([, amount]) => Number(amount) !== 0).map(([asset, amount]) => `${amount} ${asset}`);
      return { agent, profile, phone: phone?.phone_number ?? null, balances: held.join(', ') };
    }),
  );
  const body = html`<h1>Agents <span class="count">${all.length}</span></h1>
<form class="filters" method="get" action="${href('')}">
  <label>Name <input type="search" name="q" value="${filter}" placeholder="filter by name"></label>
  <button type="submit">Filter</button>
</form>
${table(
  rows,
  [
    { label: 'Agent', value: (row) => row.agent.name, render: (row) => html`<a href="${agentHref(row.agent.name)}">${row.agent.name}</a><div class="muted small">${row.profile.display_name}</div>` },
    { label: 'Email', value: (row) => row.profile.email },
    { label: 'Phone', value: (row) => row.phone },
    { label: 'Balances', value: (row) => row.balances || null },
    { label: 'Reputation', value: (row) => row.profile.reputation },
    { label: 'Created', value: (row) => row.profile.created_at },
  ],
  { empty: filter ? 'No agent matches.' : 'No agents yet: create one with POST /_sim/agents.', id: 'agents' },
)}
${matching.length > shown.length ? html`<p class="muted">Showing the newest ${shown.length} of ${matching.length}.</p>` : ''}`;
  return context.page('Agents', 'agents', body);
}
