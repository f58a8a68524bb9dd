import { ApiError } from '../../../core/shared/api-error.js';
import { PaymentMethod } from '../../../core/wallet/wallet.schema.js';
import type { HostedPayments } from '../../../core/wallet/hosted-payments.js';
import { PAGE_HEADERS } from './html.js';
import { invoicePage, notFoundPage } from './invoice-page.js';

/** The fields of a posted form (urlencoded or multipart); none when the body is not a form. */
async function formOf(request: Request): Promise<Record<string, unknown>> {
  try {
    return Object.fromEntries(await request.formData());
  } catch {
    return {};
  }
}

/** A JSON error in the DECISIONS.md shape. */
function errorResponse(error: ApiError, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(error.toBody()), { status: error.status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });
}

/**
 * The hosted payment pages, the wallet area's http edge on `/pay` (`{pay_url}` by default): `GET /invoices/{id}` shows
 * an invoice, `POST /invoices/{id}` (a form post with `method` = card, bank_transfer or crypto)
 * pays it and redirects back to the page (303), which then shows the paid confirmation. Paying a
 * paid invoice changes nothing. Public: the unguessable invoice id in the link is the capability.
 * Plain WHATWG (`request.formData()` for the form), so no web framework loads with the runtime;
 * another path under the prefix is a JSON 404, another method a JSON 405 with `Allow`.
 */
export function payPages(payments: HostedPayments, prefix = '/pay'): { fetch(request: Request): Promise<Response> } {
  const base = prefix.replace(/\/+$/, '');
  const html = (status: number, body: string) => new Response(body, { status, headers: PAGE_HEADERS });
  /** `{prefix}/invoices/{invoice_id}` → the id (percent-decoded), or undefined for any other path. */
  const invoiceIdOf = (path: string): string | undefined => {
    if (!path.startsWith(`${base}/invoices/`)) return undefined;
    const segment = path.slice(base.length + '/invoices/'.length);
    if (segment === '' || segment.includes('/')) return undefined;
    try {
      return decodeURIComponent(segment);
    } catch {
      return segment;
    }
  };

  return {
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const invoiceId = invoiceIdOf(path);
      if (invoiceId === undefined) return errorResponse(new ApiError('not_found', 'no such route'));
      if (request.method === 'GET' || request.method === 'HEAD') {
        const hosted = await payments.invoice(invoiceId);
        const page = hosted ? html(200, invoicePage(hosted)) : html(404, notFoundPage());
        return request.method === 'HEAD' ? new Response(null, page) : page;
      }
      if (request.method !== 'POST') return errorResponse(new ApiError('method_not_allowed', `${request.method} is not allowed here; allowed: GET, HEAD, POST`), { allow: 'GET, HEAD, POST' });
      const hosted = await payments.invoice(invoiceId);
      if (!hosted) return html(404, notFoundPage());
      const method = PaymentMethod.safeParse((await formOf(request)).method);
      if (!method.success) return html(400, invoicePage(hosted, { error: 'Choose how to pay: card, bank transfer or crypto.' }));
      try {
        await payments.pay(invoiceId, method.data);
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return html(404, notFoundPage());
        throw error;
      }
      return new Response(null, { status: 303, headers: { location: path, 'cache-control': 'no-store' } });
    },
  };
}
