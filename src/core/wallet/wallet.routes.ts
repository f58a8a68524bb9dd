import { defineRoute } from '../api/route.js';
import {
  Card,
  CardCharge,
  CardList,
  CardParams,
  ChainDeposit,
  ChainDepositBody,
  ChainHoldings,
  ChainHoldingsQuery,
  CardsQuery,
  ChargeCardBody,
  CreateCardBody,
  CreateInvoiceBody,
  FundWalletBody,
  Invoice,
  InvoiceParams,
  PayInvoiceBody,
  SendPaymentBody,
  SendPaymentResult,
  TransactionList,
  TransactionParams,
  TransactionsQuery,
  WalletAddresses,
  WalletBalance,
  WalletFailureBody,
  WalletFailureRule,
  WalletLedger,
  WalletTransaction,
} from './wallet.schema.js';

/** The wallet endpoints of SPEC.md part 4 and DECISIONS.md. */
export const walletRoutes = {
  /** Fiat (usd, eur) and crypto (usdc, eth, sol) balances, each at its precision. `GET /v1/wallet/balance` */
  getBalance: defineRoute({
    id: 'wallet.getBalance', method: 'GET', path: '/v1/wallet/balance', auth: 'agent', tag: 'wallet', status: 200,
    summary: 'Fiat (usd, eur) and crypto (usdc, eth, sol) balances, each at its precision.', response: WalletBalance,
  }),
  /** The agent's own deposit address on ethereum, base and solana, with the assets each takes. `GET /v1/wallet/addresses` */
  getAddresses: defineRoute({
    id: 'wallet.getAddresses', method: 'GET', path: '/v1/wallet/addresses', auth: 'agent', tag: 'wallet', status: 200,
    summary: "The agent's own deposit address on ethereum, base and solana, with the assets each takes.", response: WalletAddresses,
  }),
  /** Sends money to a handle, agent email, EVM or Solana address, iban: or aba: account; the fee is charged in the sent asset. `POST /v1/wallet/send` */
  send: defineRoute({
    id: 'wallet.send', method: 'POST', path: '/v1/wallet/send', auth: 'agent', tag: 'wallet', status: 201,
    summary: 'Sends money to a handle, agent email, EVM or Solana address, iban: or aba: account; the fee is charged in the sent asset.',
    body: SendPaymentBody, response: SendPaymentResult,
  }),
  /** History, newest first, filtered by asset and direction; keyset cursors. `GET /v1/wallet/transactions` */
  listTransactions: defineRoute({
    id: 'wallet.listTransactions', method: 'GET', path: '/v1/wallet/transactions', auth: 'agent', tag: 'wallet', status: 200,
    summary: 'History, newest first, filtered by asset and direction; keyset cursors.', query: TransactionsQuery, response: TransactionList,
  }),
  /** One history record. `GET /v1/wallet/transactions/{transaction_id}` */
  getTransaction: defineRoute({
    id: 'wallet.getTransaction', method: 'GET', path: '/v1/wallet/transactions/{transaction_id}', auth: 'agent', tag: 'wallet', status: 200,
    summary: 'One history record.', params: TransactionParams, response: WalletTransaction,
  }),
  /** Creates an open invoice with a hosted payment page (payment_url). `POST /v1/wallet/invoices` */
  createInvoice: defineRoute({
    id: 'wallet.createInvoice', method: 'POST', path: '/v1/wallet/invoices', auth: 'agent', tag: 'wallet', status: 201,
    summary: 'Creates an open invoice with a hosted payment page (payment_url).', body: CreateInvoiceBody, response: Invoice,
  }),
  /** One invoice of the calling agent. `GET /v1/wallet/invoices/{invoice_id}` */
  getInvoice: defineRoute({
    id: 'wallet.getInvoice', method: 'GET', path: '/v1/wallet/invoices/{invoice_id}', auth: 'agent', tag: 'wallet', status: 200,
    summary: 'One invoice of the calling agent.', params: InvoiceParams, response: Invoice,
  }),
  /** Issues a virtual usd card with an all-time spending limit; the number is never returned. `POST /v1/wallet/cards` */
  createCard: defineRoute({
    id: 'wallet.createCard', method: 'POST', path: '/v1/wallet/cards', auth: 'agent', tag: 'wallet', status: 201,
    summary: 'Issues a virtual usd card with an all-time spending limit; the number is never returned.', body: CreateCardBody, response: Card,
  }),
  /** The calling agent's cards, newest first. `GET /v1/wallet/cards` */
  listCards: defineRoute({
    id: 'wallet.listCards', method: 'GET', path: '/v1/wallet/cards', auth: 'agent', tag: 'wallet', status: 200,
    summary: "The calling agent's cards, newest first.", query: CardsQuery, response: CardList,
  }),
  /** One card of the calling agent. `GET /v1/wallet/cards/{card_id}` */
  getCard: defineRoute({
    id: 'wallet.getCard', method: 'GET', path: '/v1/wallet/cards/{card_id}', auth: 'agent', tag: 'wallet', status: 200,
    summary: 'One card of the calling agent.', params: CardParams, response: Card,
  }),
};

/** The wallet part of the simulation control plane (`/_sim`). */
export const walletSimRoutes = {
  /** Funds an agent's wallet from outside the service; answers the `in` history record. `POST /_sim/wallet/fund` */
  fundWallet: defineRoute({
    id: 'sim.fundWallet', method: 'POST', path: '/_sim/wallet/fund', auth: 'admin', tag: 'simulation', status: 201,
    summary: "Funds an agent's wallet from outside the service; answers the `in` history record.", body: FundWalletBody, response: WalletTransaction,
  }),
  /** Pays an invoice as its payer would on the hosted page; paying twice changes nothing. `POST /_sim/invoices/{invoice_id}/pay` */
  payInvoice: defineRoute({
    id: 'sim.payInvoice', method: 'POST', path: '/_sim/invoices/{invoice_id}/pay', auth: 'admin', tag: 'simulation', status: 200,
    summary: 'Pays an invoice as its payer would on the hosted page; paying twice changes nothing.', params: InvoiceParams, body: PayInvoiceBody, response: Invoice,
  }),
  /** A merchant charges a card: approved, or declined with spending_limit or insufficient_funds. `POST /_sim/cards/{card_id}/charges` */
  chargeCard: defineRoute({
    id: 'sim.chargeCard', method: 'POST', path: '/_sim/cards/{card_id}/charges', auth: 'admin', tag: 'simulation', status: 201,
    summary: 'A merchant charges a card: approved, or declined with spending_limit or insufficient_funds.', params: CardParams, body: ChargeCardBody, response: CardCharge,
  }),
  /** Makes the next on-chain or bank send, or every send to a recipient, end failed after it was accepted. `POST /_sim/wallet/failures` */
  addWalletFailure: defineRoute({
    id: 'sim.addWalletFailure', method: 'POST', path: '/_sim/wallet/failures', auth: 'admin', tag: 'simulation', status: 201,
    summary: 'Makes the next on-chain or bank send, or every send to a recipient, end failed after it was accepted.', body: WalletFailureBody, response: WalletFailureRule,
  }),
  /** Removes every failure rule. `DELETE /_sim/wallet/failures` */
  clearWalletFailures: defineRoute({
    id: 'sim.clearWalletFailures', method: 'DELETE', path: '/_sim/wallet/failures', auth: 'admin', tag: 'simulation', status: 204,
    summary: 'Removes every failure rule.',
  }),
  /** A deposit arrives at an agent's custody address: simulated on sim networks, a real faucet transfer on local ones (refused for RPC networks). `POST /_sim/chain/deposits` */
  chainDeposit: defineRoute({
    id: 'sim.chainDeposit', method: 'POST', path: '/_sim/chain/deposits', auth: 'admin', tag: 'simulation', status: 201,
    summary: "A deposit arrives at an agent's custody address: simulated on sim networks, a real faucet transfer on local ones (refused for RPC networks).",
    body: ChainDepositBody, response: ChainDeposit,
  }),
  /** What the custody addresses hold on chain beside what the ledger owes agents there (holdings >= ledger). `GET /_sim/chain/holdings` */
  chainHoldings: defineRoute({
    id: 'sim.chainHoldings', method: 'GET', path: '/_sim/chain/holdings', auth: 'admin', tag: 'simulation', status: 200,
    summary: 'What the custody addresses hold on chain beside what the ledger owes agents there (holdings >= ledger).', query: ChainHoldingsQuery, response: ChainHoldings,
  }),
  /** Per asset: funded in = held in wallets + fees collected + sent out of the service. `GET /_sim/wallet/ledger` */
  walletLedger: defineRoute({
    id: 'sim.walletLedger', method: 'GET', path: '/_sim/wallet/ledger', auth: 'admin', tag: 'simulation', status: 200,
    summary: 'Per asset: funded in = held in wallets + fees collected + sent out of the service.', response: WalletLedger,
  }),
};
