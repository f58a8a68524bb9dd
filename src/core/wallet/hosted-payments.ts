import type { HostedInvoice, InvoiceService } from './invoice.service.js';
import type { PaymentMethod } from './wallet.schema.js';

export type { HostedInvoice } from './invoice.service.js';

/**
 * What the hosted payment pages on `{pay_url}` may do, and nothing more: show an invoice to
 * whoever holds its link, and pay it. The HTTP layer reaches it through `runtime.hostedPayments`.
 */
export interface HostedPayments {
  /** The invoice and its payee, or undefined when there is no such invoice. */
  invoice(invoiceId: string): Promise<HostedInvoice | undefined>;
  /** Pays an open invoice (a paid one stays as it is). @throws ApiError 404 not_found */
  pay(invoiceId: string, method: PaymentMethod): Promise<HostedInvoice>;
}

/** The hosted-payments facade over the invoice service. */
export function hostedPayments(invoices: InvoiceService): HostedPayments {
  return {
    invoice: (invoiceId) => invoices.hosted(invoiceId),
    pay: async (invoiceId, method) => {
      await invoices.pay(invoiceId, method);
      return (await invoices.hosted(invoiceId))!;
    },
  };
}
