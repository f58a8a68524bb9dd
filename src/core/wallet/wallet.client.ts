import type { CallOptions } from '../api/transport.js';
import type { TypedCall } from '../api/typed-call.js';
import { walletRoutes as routes, walletSimRoutes as simRoutes } from './wallet.routes.js';
import type {
  Card,
  CardCharge,
  CardList,
  CardsQuery,
  ChargeCardBody,
  CreateCardBody,
  CreateInvoiceBody,
  FundWalletBody,
  Invoice,
  PayInvoiceBody,
  SendPaymentBody,
  SendPaymentResult,
  TransactionList,
  TransactionsQuery,
  WalletBalance,
  WalletFailureBody,
  WalletFailureRule,
  WalletLedger,
  WalletTransaction,
} from './wallet.schema.js';

/** Wallet endpoints as client methods. */
export interface WalletClient {
  /** `GET /v1/wallet/balance` */
  getBalance(): Promise<WalletBalance>;
  /** `POST /v1/wallet/send` */
  sendPayment(body: SendPaymentBody, options?: CallOptions): Promise<SendPaymentResult>;
  /** `GET /v1/wallet/transactions` */
  listTransactions(query?: Partial<TransactionsQuery>): Promise<TransactionList>;
  /** `GET /v1/wallet/transactions/{transaction_id}` */
  getTransaction(transactionId: string): Promise<WalletTransaction>;
  /** `POST /v1/wallet/invoices` */
  createInvoice(body: CreateInvoiceBody, options?: CallOptions): Promise<Invoice>;
  /** `GET /v1/wallet/invoices/{invoice_id}` */
  getInvoice(invoiceId: string): Promise<Invoice>;
  /** `POST /v1/wallet/cards` */
  createCard(body: CreateCardBody, options?: CallOptions): Promise<Card>;
  /** `GET /v1/wallet/cards` */
  listCards(query?: Partial<CardsQuery>): Promise<CardList>;
  /** `GET /v1/wallet/cards/{card_id}` */
  getCard(cardId: string): Promise<Card>;
}

/** Builds the wallet methods over a typed call. */
export function walletClient(call: TypedCall): WalletClient {
  return {
    getBalance: () => call(routes.getBalance),
    sendPayment: (body, options) => call(routes.send, { body }, options),
    listTransactions: (query = {}) => call(routes.listTransactions, { query }),
    getTransaction: (transactionId) => call(routes.getTransaction, { params: { transaction_id: transactionId } }),
    createInvoice: (body, options) => call(routes.createInvoice, { body }, options),
    getInvoice: (invoiceId) => call(routes.getInvoice, { params: { invoice_id: invoiceId } }),
    createCard: (body, options) => call(routes.createCard, { body }, options),
    listCards: (query = {}) => call(routes.listCards, { query }),
    getCard: (cardId) => call(routes.getCard, { params: { card_id: cardId } }),
  };
}

/** The wallet part of the control plane. */
export interface WalletSimClient {
  /** `POST /_sim/wallet/fund` */
  fundWallet(body: FundWalletBody, options?: CallOptions): Promise<WalletTransaction>;
  /** `POST /_sim/invoices/{invoice_id}/pay` */
  payInvoice(invoiceId: string, body: PayInvoiceBody, options?: CallOptions): Promise<Invoice>;
  /** `POST /_sim/cards/{card_id}/charges` */
  chargeCard(cardId: string, body: ChargeCardBody, options?: CallOptions): Promise<CardCharge>;
  /** `POST /_sim/wallet/failures` */
  addWalletFailure(body: WalletFailureBody): Promise<WalletFailureRule>;
  /** `DELETE /_sim/wallet/failures` */
  clearWalletFailures(): Promise<void>;
  /** `GET /_sim/wallet/ledger` */
  getWalletLedger(): Promise<WalletLedger>;
}

/** Builds the wallet control-plane methods over a typed call. */
export function walletSimClient(call: TypedCall): WalletSimClient {
  return {
    fundWallet: (body, options) => call(simRoutes.fund, { body }, options),
    payInvoice: (invoiceId, body, options) => call(simRoutes.payInvoice, { params: { invoice_id: invoiceId }, body }, options),
    chargeCard: (cardId, body, options) => call(simRoutes.chargeCard, { params: { card_id: cardId }, body }, options),
    addWalletFailure: (body) => call(simRoutes.addFailure, { body }),
    clearWalletFailures: async () => void (await call(simRoutes.clearFailures)),
    getWalletLedger: () => call(simRoutes.ledger),
  };
}
