import { z } from 'zod';
import { calendarDate, exactlyOneOf, intParam, maxChars, timestamp } from '../shared/schemas.js';
import { ASSETS, DECIMALS, NETWORKS, type Asset } from './assets.js';
import { MAX_INTEGER_DIGITS } from './amount.js';

/** An asset: usd, eur, usdc, eth or sol. */
export const WalletAsset = z.enum(ASSETS);
export type WalletAsset = z.infer<typeof WalletAsset>;

/** A network of the fake chain: ethereum, base or solana. */
export const WalletNetwork = z.enum(NETWORKS);
export type WalletNetwork = z.infer<typeof WalletNetwork>;

/** A transaction status; the only transitions are pending → confirmed and pending → failed. */
export const TransactionStatus = z.enum(['pending', 'confirmed', 'failed']);
export type TransactionStatus = z.infer<typeof TransactionStatus>;

/** A decimal amount as the wire carries it (the grammar is checked by the service: 400 invalid_amount). */
const decimalString = z.string().meta({
  pattern: '^(0|[1-9][0-9]*)(\\.[0-9]+)?$',
  description: 'decimal string, e.g. "12.50": digits, optional point and digits; no sign, exponent, spaces or leading zeros (400 invalid_amount otherwise)',
});

/**
 * The amounts an asset takes, as a pattern: at most 30 digits before the point (amounts stay below
 * 10^30) and at most the asset's decimal places after it (usd and eur 2, usdc 6, eth 18, sol 9).
 * The service checks the same (amount.ts): 400 invalid_amount otherwise.
 */
export function amountPattern(asset: Asset): string {
  return `^(0|[1-9][0-9]{0,${MAX_INTEGER_DIGITS - 1}})(\\.[0-9]{1,${DECIMALS[asset]}})?$`;
}

/** Zero in any spelling the grammar allows ("0", "0.00"). */
const ZERO = '^0(\\.0+)?$';

/** A decimal amount of one known asset, zero allowed (opening balances). */
const amountOf = (asset: Asset) =>
  z.string().meta({ pattern: amountPattern(asset), description: `decimal string of ${asset}: at most ${MAX_INTEGER_DIGITS} digits before the point and ${DECIMALS[asset]} after it (400 invalid_amount otherwise)` });

/** A positive decimal amount of one known asset. */
const positiveAmountOf = (asset: Asset) =>
  z.string().meta({
    pattern: amountPattern(asset),
    not: { pattern: ZERO },
    description: `decimal string of ${asset}, greater than zero: at most ${MAX_INTEGER_DIGITS} digits before the point and ${DECIMALS[asset]} after it (400 invalid_amount otherwise)`,
  });

/**
 * The document's statement of the per-asset limits of a body whose `amount` is in the asset named
 * by `field`: one `if`/`then` per asset (JSON Schema 2020-12). The zod schema stays a plain string:
 * the service answers these with 400 invalid_amount, not the validator's invalid_request.
 */
function amountPerAsset(field: string, assets: readonly Asset[]): { allOf: object[] } {
  return {
    allOf: assets.map((asset) => ({
      if: { properties: { [field]: { const: asset } }, required: [field] },
      then: { properties: { amount: { pattern: amountPattern(asset), not: { pattern: ZERO } } } },
    })),
  };
}

/** Longest memo, in code points. */
export const MEMO_MAX = 500;
/** Longest invoice description, in code points. */
export const DESCRIPTION_MAX = 1000;
/** Longest card label, in code points. */
export const LABEL_MAX = 100;

/** Body of `POST /v1/wallet/send`. */
export const SendPaymentBody = z
  .strictObject({
    to: z.string().describe('handle (with or without suffix), agent email, EVM or Solana address, iban:<IBAN> or aba:<routing>:<account>'),
    amount: decimalString,
    asset: WalletAsset,
    network: WalletNetwork.optional().describe('defaults to the lowest-fee network that carries the asset and fits the address'),
    memo: maxChars(MEMO_MAX).optional(),
  })
  .meta(amountPerAsset('asset', ASSETS));
export type SendPaymentBody = z.infer<typeof SendPaymentBody>;

/** A fee: amount in the sent asset. */
export const Fee = z.object({ amount: z.string(), asset: WalletAsset });
export type Fee = z.infer<typeof Fee>;

/** Answer of `POST /v1/wallet/send`. */
export const SendPaymentResult = z.object({
  transaction_id: z.string(),
  status: TransactionStatus,
  fee: Fee,
  sent_at: timestamp,
});
export type SendPaymentResult = z.infer<typeof SendPaymentResult>;

/** Answer of `GET /v1/wallet/balance`: fiat at 2 places, crypto at full precision. */
export const WalletBalance = z.object({
  fiat: z.object({ usd: z.string(), eur: z.string() }),
  crypto: z.object({ usdc: z.string(), eth: z.string(), sol: z.string() }),
  updated_at: timestamp,
});
export type WalletBalance = z.infer<typeof WalletBalance>;

/** A history record: SPEC.md's fields plus `from`, `network` and `fee` (DECISIONS.md). */
export const WalletTransaction = z.object({
  id: z.string(),
  direction: z.enum(['in', 'out']),
  amount: z.string(),
  asset: WalletAsset,
  to: z.string(),
  from: z.string(),
  memo: z.string(),
  status: TransactionStatus,
  network: WalletNetwork.nullable(),
  fee: Fee,
  created_at: timestamp,
  reference: z.string().nullable().describe("the chain's transaction hash or the bank's reference; null for book transfers and funding"),
});
export type WalletTransaction = z.infer<typeof WalletTransaction>;

/** One deposit address of an agent: where `assets` sent on `network` reach its wallet. */
export const WalletAddress = z.object({ network: WalletNetwork, address: z.string(), assets: z.array(WalletAsset) });
export type WalletAddress = z.infer<typeof WalletAddress>;

/** Answer of `GET /v1/wallet/addresses`: one address per network (ethereum, base, solana). */
export const WalletAddresses = z.object({ addresses: z.array(WalletAddress) });
export type WalletAddresses = z.infer<typeof WalletAddresses>;

/** Query of `GET /v1/wallet/transactions`. */
export const TransactionsQuery = z.strictObject({
  limit: intParam(1, 100).default(20),
  cursor: z.string().min(1).optional(),
  asset: WalletAsset.optional(),
  direction: z.enum(['in', 'out']).optional(),
});
export type TransactionsQuery = z.infer<typeof TransactionsQuery>;

/** Answer of `GET /v1/wallet/transactions`: newest first. */
export const TransactionList = z.object({ transactions: z.array(WalletTransaction), next_cursor: z.string().nullable() });
export type TransactionList = z.infer<typeof TransactionList>;

/** Path of `GET /v1/wallet/transactions/{transaction_id}`. */
export const TransactionParams = z.strictObject({ transaction_id: z.string().min(1).max(100) });
export type TransactionParams = z.infer<typeof TransactionParams>;

/** Currencies invoices are issued in. */
export const InvoiceCurrency = z.enum(['usd', 'eur', 'usdc']);
export type InvoiceCurrency = z.infer<typeof InvoiceCurrency>;

/** Body of `POST /v1/wallet/invoices`. */
export const CreateInvoiceBody = z
  .strictObject({
    to: z.string().describe('email or handle of the payer'),
    amount: decimalString,
    currency: InvoiceCurrency,
    description: maxChars(DESCRIPTION_MAX).optional(),
    due_date: calendarDate.optional().describe('shown on the invoice only; it never cancels it'),
  })
  .meta(amountPerAsset('currency', InvoiceCurrency.options));
export type CreateInvoiceBody = z.infer<typeof CreateInvoiceBody>;

/** An invoice (DECISIONS.md). */
export const Invoice = z.object({
  invoice_id: z.string(),
  to: z.string(),
  amount: z.string(),
  currency: InvoiceCurrency,
  description: z.string().nullable(),
  due_date: z.string().nullable(),
  status: z.enum(['open', 'paid']),
  payment_url: z.string(),
  created_at: timestamp,
  paid_at: timestamp.nullable(),
});
export type Invoice = z.infer<typeof Invoice>;

/** Path of the invoice endpoints. */
export const InvoiceParams = z.strictObject({ invoice_id: z.string().min(1).max(100) });
export type InvoiceParams = z.infer<typeof InvoiceParams>;

/** How a payer pays an invoice on the hosted page. */
export const PaymentMethod = z.enum(['card', 'bank_transfer', 'crypto']);
export type PaymentMethod = z.infer<typeof PaymentMethod>;

/** Body of `POST /v1/wallet/cards`. */
export const CreateCardBody = z.strictObject({
  limit: positiveAmountOf('usd').describe('all-time spending limit in usd'),
  currency: z.enum(['usd']),
  label: maxChars(LABEL_MAX).optional(),
});
export type CreateCardBody = z.infer<typeof CreateCardBody>;

/** A virtual card; the number is never part of the API. */
export const Card = z.object({
  card_id: z.string(),
  last4: z.string(),
  expires_at: z.string(),
  limit: z.string(),
  currency: z.literal('usd'),
  label: z.string(),
  status: z.literal('active'),
});
export type Card = z.infer<typeof Card>;

/** Query of `GET /v1/wallet/cards`. */
export const CardsQuery = z.strictObject({ limit: intParam(1, 100).default(20), cursor: z.string().min(1).optional() });
export type CardsQuery = z.infer<typeof CardsQuery>;

/** Answer of `GET /v1/wallet/cards`: newest first. */
export const CardList = z.object({ cards: z.array(Card), next_cursor: z.string().nullable() });
export type CardList = z.infer<typeof CardList>;

/** Path of the card endpoints. */
export const CardParams = z.strictObject({ card_id: z.string().min(1).max(100) });
export type CardParams = z.infer<typeof CardParams>;

/** `balances` of `POST /_sim/agents`: opening balances, each a non-negative decimal. */
export const OpeningBalances = z.strictObject({
  usd: amountOf('usd').optional(),
  eur: amountOf('eur').optional(),
  usdc: amountOf('usdc').optional(),
  eth: amountOf('eth').optional(),
  sol: amountOf('sol').optional(),
});
export type OpeningBalances = z.infer<typeof OpeningBalances>;

/** Body of `POST /_sim/wallet/fund`. */
export const FundWalletBody = z
  .strictObject({
    handle: z.string().min(1).max(300).describe("the agent's handle (with or without suffix) or email"),
    asset: WalletAsset,
    amount: decimalString,
  })
  .meta(amountPerAsset('asset', ASSETS));
export type FundWalletBody = z.infer<typeof FundWalletBody>;

/** Body of `POST /_sim/chain/deposits`: money arrives at an agent's custody address from outside. */
export const ChainDepositBody = z.strictObject({
  network: WalletNetwork,
  asset: z.enum(['usdc', 'eth', 'sol']),
  amount: decimalString,
  to: z.string().min(1).max(300).describe("an agent's handle (with or without suffix), email or custody address"),
  from: z.string().min(1).max(100).optional().describe('the sending address; only on simulated networks'),
});
export type ChainDepositBody = z.infer<typeof ChainDepositBody>;

/** Answer of `POST /_sim/chain/deposits`. */
export const ChainDeposit = z.object({ network: WalletNetwork, reference: z.string(), to: z.string(), asset: WalletAsset, amount: z.string() });
export type ChainDeposit = z.infer<typeof ChainDeposit>;

/** Query of `GET /_sim/chain/holdings`. */
export const ChainHoldingsQuery = z.strictObject({ network: WalletNetwork });
export type ChainHoldingsQuery = z.infer<typeof ChainHoldingsQuery>;

/** Answer of `GET /_sim/chain/holdings`: what custody addresses hold on chain beside what the ledger owes agents there. */
export const ChainHoldings = z.object({
  network: WalletNetwork,
  hot_wallet: z.string(),
  holdings: z.record(z.string(), z.string()),
  ledger: z.record(z.string(), z.string()),
});
export type ChainHoldings = z.infer<typeof ChainHoldings>;

/** Body of `POST /_sim/invoices/{invoice_id}/pay` (and of the hosted page's form). */
export const PayInvoiceBody = z.strictObject({ method: PaymentMethod });
export type PayInvoiceBody = z.infer<typeof PayInvoiceBody>;

/** Body of `POST /_sim/cards/{card_id}/charges`. */
export const ChargeCardBody = z.strictObject({ amount: positiveAmountOf('usd'), merchant: maxChars(200).min(1) });
export type ChargeCardBody = z.infer<typeof ChargeCardBody>;

/** Answer of a card charge: approved with its transaction, or declined with a reason. */
export const CardCharge = z.object({
  approved: z.boolean(),
  decline_reason: z.enum(['spending_limit', 'insufficient_funds', 'policy']).optional(),
  transaction_id: z.string().optional(),
});
export type CardCharge = z.infer<typeof CardCharge>;

/** Body of `POST /_sim/wallet/failures`: exactly one of `next` or `recipient`. */
export const WalletFailureBody = exactlyOneOf(
  z.strictObject({
    next: z.literal(true).optional().describe('the next on-chain or bank send fails'),
    recipient: z.string().min(1).max(300).optional().describe('every on-chain or bank send to this recipient fails'),
    reason: maxChars(200).min(1).optional(),
  }),
  ['next', 'recipient'],
);
export type WalletFailureBody = z.infer<typeof WalletFailureBody>;

/** A failure rule of the simulated payment rails. */
export const WalletFailureRule = z.object({
  rule_id: z.string(),
  recipient: z.string().nullable(),
  remaining: z.number().int().nullable(),
  reason: z.string(),
});
export type WalletFailureRule = z.infer<typeof WalletFailureRule>;

/** Totals of one asset across the service: funded_in = held + fees_collected + sent_out. */
export const AssetTotals = z.object({ funded_in: z.string(), held: z.string(), fees_collected: z.string(), sent_out: z.string() });
export type AssetTotals = z.infer<typeof AssetTotals>;

/** Answer of `GET /_sim/wallet/ledger`: conservation of money, per asset. */
export const WalletLedger = z.object({
  assets: z.object({ usd: AssetTotals, eur: AssetTotals, usdc: AssetTotals, eth: AssetTotals, sol: AssetTotals }),
});
export type WalletLedger = z.infer<typeof WalletLedger>;

/** The wallet's fields of `POST /_sim/agents`: opening balances, non-negative decimals funded into the service. */
export const WalletCreationFields = { balances: OpeningBalances.optional() };
