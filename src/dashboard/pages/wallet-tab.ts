import type { ServiceEvent } from '../../core/ports/event-log.js';
import type { Invoice, WalletTransaction } from '../../core/wallet/wallet.schema.js';
import { fields, html, status, table, type Html } from '../html.js';
import type { AgentSubject, PageContext, SectionSpec } from '../page-context.js';
import { recentEvents, recentInvoiceIds } from '../world-reads.js';

const LIMIT = 50;

/** A transaction's status changes, oldest first, from its `wallet.transaction.*` events. */
function timeline(transaction: WalletTransaction, events: ServiceEvent[]): Html {
  const steps = events
    .filter((event) => event.data.transaction_id === transaction.id)
    .reverse()
    .map(
      (event) =>
        html`<li>${status(String(event.data.status ?? ''))} <time datetime="${event.at}">${event.at.replace('T', ' ').slice(0, 19)}</time>${event.data.reason ? html` <span class="muted">(${String(event.data.reason)})</span>` : ''}</li>`,
    );
  return steps.length > 0 ? html`<ol class="timeline">${steps}</ol>` : status(transaction.status);
}

/** Wallet tab: balances, history with each record's status changes, invoices, cards. */
export function walletSections(context: PageContext, { agent, client }: AgentSubject): SectionSpec[] {
  return [
    {
      id: 'balances',
      areas: ['wallet', 'card', 'invoice'],
      title: 'Balances',
      async render() {
        const balance = await client.wallet.getBalance();
        return html`${fields([...Object.entries(balance.fiat), ...Object.entries(balance.crypto)].map(([asset, amount]) => [asset.toUpperCase(), amount] as [string, unknown]))}
<p class="muted small">updated ${balance.updated_at}</p>`;
      },
    },
    {
      id: 'transactions',
      areas: ['wallet', 'card', 'invoice'],
      title: 'History',
      async render() {
        const { transactions } = await client.wallet.listTransactions({ limit: LIMIT });
        const ids = new Set(transactions.map((transaction) => transaction.id));
        const events = await recentEvents(context.runtime, (event) => event.agent_id === agent.agent_id && event.type.startsWith('wallet.transaction.') && ids.has(String(event.data.transaction_id)), LIMIT * 4);
        return table(
          transactions,
          [
            { label: 'Id', value: (row) => row.id },
            { label: 'Dir', value: (row) => row.direction },
            { label: 'Amount', value: (row) => `${row.amount} ${row.asset}` },
            { label: 'Fee', value: (row) => row.fee },
            { label: 'To', value: (row) => row.to },
            { label: 'From', value: (row) => row.from },
            { label: 'Network', value: (row) => row.network },
            { label: 'Memo', value: (row) => row.memo || null },
            { label: 'Status', value: (row) => row.status, render: (row) => timeline(row, events) },
            { label: 'Created', value: (row) => row.created_at },
          ],
          { empty: 'No transactions yet.', id: 'transactions-table' },
        );
      },
    },
    {
      id: 'invoices',
      areas: ['invoice'],
      title: 'Invoices',
      async render() {
        const invoices: Invoice[] = await Promise.all((await recentInvoiceIds(context.runtime, agent.agent_id, LIMIT)).map((id) => client.wallet.getInvoice(id)));
        return table(
          invoices,
          [
            { label: 'Id', value: (row) => row.invoice_id },
            { label: 'To', value: (row) => row.to },
            { label: 'Amount', value: (row) => `${row.amount} ${row.currency}` },
            { label: 'Description', value: (row) => row.description },
            { label: 'Due', value: (row) => row.due_date },
            { label: 'Status', value: (row) => row.status, render: (row) => status(row.status) },
            { label: 'Paid', value: (row) => row.paid_at },
            { label: 'Pay page', value: (row) => row.payment_url, render: (row) => html`<a href="${row.payment_url}" rel="noreferrer">open</a>` },
          ],
          { empty: 'No invoices.' },
        );
      },
    },
    {
      id: 'cards',
      areas: ['card'],
      title: 'Cards',
      async render() {
        const { cards } = await client.wallet.listCards({ limit: LIMIT });
        return table(
          cards,
          [
            { label: 'Id', value: (row) => row.card_id },
            { label: 'Label', value: (row) => row.label },
            { label: 'Last 4', value: (row) => row.last4 },
            { label: 'Limit', value: (row) => `${row.limit} ${row.currency}` },
            { label: 'Expires', value: (row) => row.expires_at },
            { label: 'Status', value: (row) => row.status, render: (row) => status(row.status) },
          ],
          { empty: 'No cards.' },
        );
      },
    },
  ];
}
