import type { RailFaults } from '../ports/rail-faults.js';
import { bindRoute, callerOf, type BoundRoute } from '../api/route.js';
import { ApiError } from '../shared/api-error.js';
import type { CardService } from './card.service.js';
import type { CustodyService } from './custody.service.js';
import type { DepositService } from './deposit.service.js';
import type { InvoiceService } from './invoice.service.js';
import { walletRoutes as routes, walletSimRoutes as simRoutes } from './wallet.routes.js';
import type { WalletService } from './wallet.service.js';

/** Failure injection of simulated payment rails (absent when the rails are real). */

/** Binds the wallet routes and the wallet part of the control plane to the services. */
export function walletHandlers(wallet: WalletService, invoices: InvoiceService, cards: CardService, custody: CustodyService, deposits: DepositService, faults: RailFaults | undefined): BoundRoute[] {
  const simulatedOnly = (): never => {
    throw new ApiError('invalid_request', 'the payment rails are not simulated; failures cannot be injected');
  };
  return [
    bindRoute(routes.getBalance, (context) => wallet.balance(callerOf(context))),
    bindRoute(routes.getAddresses, (context) => custody.addresses(callerOf(context))),
    bindRoute(routes.send, (context, { body }) => wallet.send(callerOf(context), body)),
    bindRoute(routes.listTransactions, (context, { query }) => wallet.transactions(callerOf(context), query)),
    bindRoute(routes.getTransaction, (context, { params }) => wallet.transaction(callerOf(context), params.transaction_id)),
    bindRoute(routes.createInvoice, (context, { body }) => invoices.create(callerOf(context), body)),
    bindRoute(routes.getInvoice, (context, { params }) => invoices.get(callerOf(context), params.invoice_id)),
    bindRoute(routes.createCard, (context, { body }) => cards.create(callerOf(context), body)),
    bindRoute(routes.listCards, (context, { query }) => cards.list(callerOf(context), query)),
    bindRoute(routes.getCard, (context, { params }) => cards.get(callerOf(context), params.card_id)),
    bindRoute(simRoutes.fundWallet, (_context, { body }) => wallet.fund(body)),
    bindRoute(simRoutes.payInvoice, (_context, { params, body }) => invoices.pay(params.invoice_id, body.method)),
    bindRoute(simRoutes.chargeCard, (_context, { params, body }) => cards.charge(params.card_id, body)),
    bindRoute(simRoutes.addWalletFailure, (_context, { body }) => (faults ? faults.addFailure(body) : simulatedOnly())),
    bindRoute(simRoutes.clearWalletFailures, async () => {
      await (faults ? faults.clearFailures() : simulatedOnly());
      return undefined;
    }),
    bindRoute(simRoutes.walletLedger, () => wallet.totals()),
    bindRoute(simRoutes.chainDeposit, (_context, { body }) => deposits.deposit(body)),
    bindRoute(simRoutes.chainHoldings, (_context, { query }) => deposits.holdings(query.network)),
  ];
}
