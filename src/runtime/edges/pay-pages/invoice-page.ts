import type { HostedInvoice } from '../../../core/wallet/hosted-payments.js';
import { escapeHtml, page } from './html.js';

const METHODS = [
  ['card', 'Pay by card'],
  ['bank_transfer', 'Pay by bank transfer'],
  ['crypto', 'Pay with crypto'],
] as const;

/** The hosted invoice page: what is owed, to whom, and (while open) a form with three ways to pay. */
export function invoicePage({ invoice, payee }: HostedInvoice, options: { error?: string } = {}): string {
  const amount = `${invoice.amount} ${invoice.currency.toUpperCase()}`;
  const rows: Array<[string, string, string]> = [
    ['Pay to', `${payee.display_name} (${payee.handle})`, 'payee'],
    ['Billed to', invoice.to, 'payer'],
    ['Description', invoice.description ?? '—', 'description'],
    ['Due date', invoice.due_date ?? '—', 'due-date'],
    ['Status', invoice.status === 'paid' ? 'Paid' : 'Open', 'status'],
    ['Invoice', invoice.invoice_id, 'invoice-id'],
  ];
  const details = rows.map(([label, value, id]) => `<dt>${escapeHtml(label)}</dt><dd id="${id}">${escapeHtml(value)}</dd>`).join('\n');
  const error = options.error ? `<p class="error" role="alert">${escapeHtml(options.error)}</p>` : '';
  const action =
    invoice.status === 'paid'
      ? `<p class="paid" role="status" id="paid-confirmation">Paid on ${escapeHtml(invoice.paid_at ?? '')}. Thank you — nothing more is due.</p>`
      : `<form method="post">
<fieldset>
<legend>Pay ${escapeHtml(amount)}</legend>
${METHODS.map(([value, label]) => `<button type="submit" name="method" value="${value}">${label}</button>`).join('\n')}
</fieldset>
</form>`;
  const body = `<h1>Invoice from ${escapeHtml(payee.display_name)}</h1>
<p class="amount" id="amount">${escapeHtml(amount)}</p>
<dl>
${details}
</dl>
${error}
${action}`;
  return page(`Invoice ${invoice.invoice_id} — ${amount}`, body);
}

/** The page of a link that leads nowhere. */
export function notFoundPage(): string {
  return page('Invoice not found', '<h1>Invoice not found</h1>\n<p>This payment link does not lead to an invoice. Check the link you were sent.</p>');
}
