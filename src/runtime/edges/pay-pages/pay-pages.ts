import { Hono } from 'hono';
import { ApiError } from '../../../core/shared/api-error.js';
import { PaymentMethod } from '../../../core/wallet/wallet.schema.js';
import type { HostedPayments } from '../../../core/wallet/hosted-payments.js';
import { PAGE_HEADERS } from './html.js';
import { invoicePage, notFoundPage } from './invoice-page.js';

/**
 * The hosted payment pages, the wallet area's http edge on `/pay` (`{pay_url}` by default): `GET /invoices/{id}` shows
 * an invoice, `POST /invoices/{id}` (a form post with `method` = card, bank_transfer or crypto)
 * pays it and redirects back to the page (303), which then shows the paid confirmation. Paying a
 * paid invoice changes nothing. Public: the unguessable invoice id in the link is the capability.
 */
export function payPages(payments: HostedPayments, prefix = '/pay'): Hono {
  const app = new Hono().basePath(prefix);
  const html = (status: number, body: string) => new Response(body, { status, headers: PAGE_HEADERS });

  app.get('/invoices/:invoice_id', (c) => {
    const hosted = payments.invoice(c.req.param('invoice_id'));
    return hosted ? html(200, invoicePage(hosted)) : html(404, notFoundPage());
  });

  app.post('/invoices/:invoice_id', async (c) => {
    const invoiceId = c.req.param('invoice_id');
    const hosted = payments.invoice(invoiceId);
    if (!hosted) return html(404, notFoundPage());
    const form: Record<string, unknown> = await c.req.parseBody().catch(() => ({}));
    const method = PaymentMethod.safeParse(form.method);
    if (!method.success) return html(400, invoicePage(hosted, { error: 'Choose how to pay: card, bank transfer or crypto.' }));
    try {
      await payments.pay(invoiceId, method.data);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return html(404, notFoundPage());
      throw error;
    }
    return new Response(null, { status: 303, headers: { location: c.req.path, 'cache-control': 'no-store' } });
  });

  return app;
}
