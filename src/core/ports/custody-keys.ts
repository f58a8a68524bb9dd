import type { ServiceIdentifier } from '../shared/di.js';

/** The addresses of one custody index: one EVM address (ethereum and base) and one Solana address. */
export interface CustodyAddresses {
  /** m/44'/60'/0'/0/i, EIP-55 checksummed. */
  evm: string;
  /** m/44'/501'/i'/0' (SLIP-0010 ed25519), base58. */
  solana: string;
}

/**
 * The custody keys of the service: one BIP-39 mnemonic from which every address derives. Index 0
 * is the hot wallet (it pays every outbound transfer and its gas); each agent has its own index
 * from 1. The port hands out addresses only: the mnemonic and private keys stay inside the
 * adapter, so nothing the core writes (records, events, answers) can ever carry them.
 */
export interface CustodyKeys {
  /** The addresses of a custody index (the same answer every time for the same index). */
  addresses(index: number): CustodyAddresses;
}

/** Injection token of {@link CustodyKeys}. */
export const CustodyKeys = Symbol.for('agent-services/CustodyKeys') as ServiceIdentifier<CustodyKeys>;
