import type { ServiceIdentifier } from '../shared/di.js';
import type { StoreTransaction } from './store.js';

/** The blockchains a payment can travel on. */
export type ChainNetwork = 'ethereum' | 'base' | 'solana';
/** The bank rails a payment can travel on. */
export type BankRail = 'iban' | 'aba';
/** Where an outbound payment travels: a blockchain, or a bank rail. */
export type RailName = ChainNetwork | BankRail;

/** A payment the wallet has accepted and already debited, handed to the outside world. */
export interface OutboundTransfer {
  transaction_id: string;
  rail: RailName;
  asset: string;
  /** Decimal string at the asset's precision. */
  amount: string;
  /** The recipient in one spelling: lower-case EVM address, Solana address, `iban:<IBAN>`, `aba:<routing>:<account>`. */
  to: string;
  from_agent_id: string;
}

/** What the rail answers when it takes a transfer. */
export interface RailSubmission {
  /** Transaction hash on a chain, or the bank's reference. */
  reference: string;
  /** Block the transaction was included in (chains), else null. */
  block: number | null;
  /** When to ask for the outcome. */
  check_at_ms: number;
}

/** What became of a transfer. */
export type RailSettlement = { status: 'pending'; check_at_ms: number } | { status: 'confirmed' } | { status: 'failed'; reason: string };

/**
 * The outside world of money: blockchains (ethereum, base, solana) and bank rails (IBAN, ABA).
 * The simulation decides confirmation times and failures on the clock; a real adapter broadcasts
 * after the transaction commits (`tx.afterCommit`) and reports what the chain or bank says.
 */
export interface PaymentRails {
  /** Takes a transfer inside the wallet's transaction (written together with the debit); every write awaited before it answers. */
  submit(tx: StoreTransaction, transfer: OutboundTransfer): Promise<RailSubmission>;
  /** The outcome of a submitted transfer, asked at or after its `check_at_ms`. */
  check(reference: string): RailSettlement | Promise<RailSettlement>;
}

/** Injection token of {@link PaymentRails}. */
export const PaymentRails = Symbol.for('agent-services/PaymentRails') as ServiceIdentifier<PaymentRails>;
