import { ApiError } from '../../core/shared/api-error.js';
import { PaymentMethod } from '../../core/wallet/wallet.schema.js';
import type { Runtime } from '../../runtime/create-runtime.js';
import { methodNotAllowed } from '../api-edge.js';
import { toWebResponse } from '../answers.js';
import { PAGE_HEADERS } from './html.js';
import { invoicePage, notFoundPage } from './invoice-page.js';

/** `/pay/invoices/{invoice_id}` → the id (percent-decoded), or undefined for any other path. */
function invoiceIdOf(path: string): string | undefined {
  const match = /^\/pay\/invoices\/([^/]+)$/.exec(path);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return match[1]!;
  }
}

/** The fields of a posted form (urlencoded or multipart); none when the body is not a form. */
async function formOf(request: Request): Promise<Record<string, unknown>> {
  try {
    return Object.fromEntries(await request.formData());
  } catch {
    return {};
  }
}

/**
 * The hosted payment pages, mounted on `/pay` (`{pay_url}` by default): `GET /invoices/{id}` shows
 * an invoice, `POST /invoices/{id}` (a form post with `method` = card, bank_transfer or crypto)
 * pays it and redirects back to the page (303), which then shows the paid confirmation. Paying a
 * paid invoice changes nothing. Public: the unguessable invoice id in the link is the capability.
 * Answers undefined for a path that is not a page (a 405 with `Allow` for a method it does not take).
 */
export function payPages(runtime: Runtime): (request: Request, path: string) => Promise<Response | undefined> {
  const html = (status: number, body: string) => new Response(body, { status, headers: PAGE_HEADERS });
  return async (request, path) => {
    const invoiceId = invoiceIdOf(path);
    if (invoiceId === undefined) return undefined;
    if (request.method === 'GET' || request.method === 'HEAD') {
      const hosted = runtime.hostedPayments.invoice(invoiceId);
      return hosted ? html(200, invoicePage(hosted)) : html(404, notFoundPage());
    }
    if (request.method !== 'POST') return toWebResponse(methodNotAllowed(request.method, 'GET, HEAD, POST'), false);
    const hosted = runtime.hostedPayments.invoice(invoiceId);
    if (!hosted) return html(404, notFoundPage());
    const method = PaymentMethod.safeParse((await formOf(request)).method);
    if (!method.success) return html(400, invoicePage(hosted, { error: 'Choose how to pay: card, bank transfer or crypto.' }));
    try {
      await runtime.hostedPayments.pay(invoiceId, method.data);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return html(404, notFoundPage());
      throw error;
    }
    return new Response(null, { status: 303, headers: { location: path, 'cache-control': 'no-store' } });
  };
}
