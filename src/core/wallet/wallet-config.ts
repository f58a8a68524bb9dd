import type { BillingAddress } from '../ports/card-vault.js';
import type { ServiceIdentifier } from '../shared/di.js';
import { resolveFees, type FeeOverrides, type FeeTable } from './fees.js';
import type { Network } from './assets.js';
import { resolveChains, type ChainOptions, type ChainSetting } from './chain-config.js';

/** Wallet options of `createRuntime({ wallet })`. */
export interface WalletOptions extends ChainOptions {
  /** Fee schedule overrides (decimal strings in the sent asset); unspecified fees keep the DECISIONS.md defaults. */
  fees?: FeeOverrides;
  /** The billing address of new cards, without the holder's name (default: the simulation's, {@link DEFAULT_BILLING_ADDRESS}). */
  cardBillingAddress?: Omit<BillingAddress, 'name'>;
  /**
   * The BIP-39 mnemonic every custody address derives from (index 0 the hot wallet, agents from 1).
   * Simulated chains derive one from the seed when none is given; it is never logged, stored or answered.
   */
  custodyMnemonic?: string;
  /** A file holding the custody mnemonic (`--custody-mnemonic-file`); read once at start-up. */
  custodyMnemonicFile?: string;
}

/** The billing address simulated cards carry (the holder's name is the agent's display name). */
export const DEFAULT_BILLING_ADDRESS: Omit<BillingAddress, 'name'> = { line1: '1 Test Card Way', city: 'San Francisco', state: 'CA', postal_code: '94105', country: 'US' };

/** The resolved wallet configuration of one runtime. */
export interface WalletConfig {
  readonly fees: FeeTable;
  readonly cardBillingAddress: Omit<BillingAddress, 'name'>;
  /** How each network runs (`sim` unless configured). */
  readonly chains: Readonly<Record<Network, ChainSetting>>;
}

/** Injection token of {@link WalletConfig}. */
export const WalletConfig = Symbol.for('agent-services/WalletConfig') as ServiceIdentifier<WalletConfig>;

/** Resolves wallet options. @throws RangeError on an invalid fee or chain setting */
export function walletConfig(options: WalletOptions = {}): WalletConfig {
  return { fees: resolveFees(options.fees), cardBillingAddress: options.cardBillingAddress ?? DEFAULT_BILLING_ADDRESS, chains: resolveChains(options) };
}
