import { inject, injectable } from '../shared/di.js';
import { Clock } from '../ports/clock.js';
import { EventLog } from '../ports/event-log.js';
import { Random } from '../ports/random.js';
import { Store, type StoreView } from '../ports/store.js';
import { ApiError, notFound } from '../shared/api-error.js';
import { ServiceConfig } from '../shared/service-config.js';
import { toIso } from '../shared/time.js';
import { IdentityService } from '../identity/identity.service.js';
import { formatAmount, parseAmount, storedMinor } from './amount.js';
import { parseRecipient } from './recipients.js';
import { WALLETS } from './ledger.js';
import { WalletService } from './wallet.service.js';
import type { CreateInvoiceBody, Invoice, PaymentMethod } from './wallet.schema.js';

const INVOICES = 'invoices';

/** An invoice as stored; `payment_url` is derived from `{pay_url}` when read. */
interface StoredInvoice extends Omit<Invoice, 'payment_url'> {
  agent_id: string;
  payment_method: PaymentMethod | null;
  transaction_id: string | null;
}

/** What the hosted payment page shows. */
export interface HostedInvoice {
  invoice: Invoice;
  /** Who is paid: the creator's handle and display name. */
  payee: { handle: string; display_name: string };
}

/**
 * Invoices with a hosted payment page. The payer is outside the wallet system (card, bank
 * transfer or crypto through the page), so paying credits the creator with money from outside
 * the service, even when `to` names an agent of this service. Paying is idempotent: a paid
 * invoice stays as it is.
 */
@injectable()
export class InvoiceService {
  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    @inject(Random) private readonly random: Random,
    @inject(EventLog) private readonly events: EventLog,
    @inject(ServiceConfig) private readonly config: ServiceConfig,
    @inject(IdentityService) private readonly identity: IdentityService,
    @inject(WalletService) private readonly wallet: WalletService,
  ) {}

  /**
   * Creates an open invoice.
   * @throws ApiError 400 invalid_amount (amount), invalid_recipient (to)
   */
  async create(agentId: string, body: CreateInvoiceBody): Promise<Invoice> {
    const amount = parseAmount(body.amount, body.currency, 'amount');
    const payer = body.to.length <= 320 ? parseRecipient(body.to) : undefined;
    if (!payer || (payer.kind !== 'handle' && payer.kind !== 'email')) {
      throw new ApiError('invalid_recipient', 'to: must be the email or handle of the payer', 'to');
    }
    await this.identity.agent(agentId);
    const invoice: StoredInvoice = {
      invoice_id: this.random.id('invoice'),
      to: body.to,
      amount: formatAmount(amount, body.currency),
      currency: body.currency,
      description: body.description ?? null,
      due_date: body.due_date ?? null,
      status: 'open',
      created_at: toIso(this.clock.now()),
      paid_at: null,
      agent_id: agentId,
      payment_method: null,
      transaction_id: null,
    };
    await this.store.transaction(async (tx) => {
      await tx.insert(INVOICES, invoice.invoice_id, invoice, agentId);
      await this.events.append(tx, {
        type: 'invoice.created',
        agent_id: agentId,
        data: { invoice_id: invoice.invoice_id, to: invoice.to, amount: invoice.amount, currency: invoice.currency },
      });
    });
    return this.toWire(invoice);
  }

  /** An invoice of the calling agent. @throws ApiError 404 not_found */
  async get(agentId: string, invoiceId: string): Promise<Invoice> {
    const invoice = await this.store.view.get<StoredInvoice>(INVOICES, invoiceId);
    if (!invoice || invoice.agent_id !== agentId) throw notFound('invoice');
    return this.toWire(invoice);
  }

  /** An invoice as the API answers it, read in `view` (a transaction's, for events), or undefined. */
  async wireOf(view: StoreView, invoiceId: string): Promise<Invoice | undefined> {
    const invoice = await view.get<StoredInvoice>(INVOICES, invoiceId);
    return invoice && this.toWire(invoice);
  }

  /** The invoice as the public payment page shows it, or undefined. */
  async hosted(invoiceId: string): Promise<HostedInvoice | undefined> {
    const invoice = await this.store.view.get<StoredInvoice>(INVOICES, invoiceId);
    if (!invoice) return undefined;
    const creator = await this.identity.agent(invoice.agent_id);
    return { invoice: this.toWire(invoice), payee: { handle: creator.handle, display_name: creator.display_name } };
  }

  /**
   * Pays an invoice from outside: it becomes `paid`, the creator is credited with an `in` record
   * and `invoice.paid` is emitted. Paying a paid invoice changes nothing and answers it as it is.
   * @throws ApiError 404 not_found
   */
  async pay(invoiceId: string, method: PaymentMethod): Promise<Invoice> {
    const transactionId = this.random.id('transaction');
    const paid = await this.store.transaction(async (tx) => {
      const invoice = await tx.get<StoredInvoice>(INVOICES, invoiceId);
      if (!invoice) throw notFound('invoice');
      if (invoice.status === 'paid') return invoice;
      await tx.lock(WALLETS, [invoice.agent_id]);
      const creator = await this.identity.agent(invoice.agent_id, tx);
      await this.wallet.credit(tx, creator, invoice.currency, storedMinor(invoice.amount), {
        id: transactionId,
        from: invoice.to,
        kind: 'invoice',
        memo: `invoice ${invoice.invoice_id} paid by ${method.replace('_', ' ')}`,
      });
      const next: StoredInvoice = { ...invoice, status: 'paid', paid_at: toIso(this.clock.now()), payment_method: method, transaction_id: transactionId };
      await tx.update(INVOICES, invoiceId, next);
      await this.events.append(tx, {
        type: 'invoice.paid',
        agent_id: invoice.agent_id,
        data: { invoice_id: invoiceId, transaction_id: transactionId, method, amount: invoice.amount, currency: invoice.currency },
      });
      await this.identity.recordActivity(tx, invoice.agent_id, 'invoices_paid');
      await this.identity.recordActivity(tx, invoice.agent_id, 'payments_confirmed');
      return next;
    });
    return this.toWire(paid);
  }

  private toWire(invoice: StoredInvoice): Invoice {
    return {
      invoice_id: invoice.invoice_id,
      to: invoice.to,
      amount: invoice.amount,
      currency: invoice.currency,
      description: invoice.description,
      due_date: invoice.due_date,
      status: invoice.status,
      payment_url: `${this.config.payUrl}/invoices/${invoice.invoice_id}`,
      created_at: invoice.created_at,
      paid_at: invoice.paid_at,
    };
  }
}
