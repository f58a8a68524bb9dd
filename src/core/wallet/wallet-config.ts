import type { ServiceIdentifier } from '../shared/di.js';
import { resolveFees, type FeeOverrides, type FeeTable } from './fees.js';
import type { Network } from './assets.js';
import { resolveChains, type ChainOptions, type ChainSetting } from './chain-config.js';

/** Wallet options of `createRuntime({ wallet })`. */
export interface WalletOptions extends ChainOptions {
  /** Fee schedule overrides (decimal strings in the sent asset); unspecified fees keep the DECISIONS.md defaults. */
  fees?: FeeOverrides;
  /**
   * The BIP-39 mnemonic every custody address derives from (index 0 the hot wallet, agents from 1).
   * Simulated chains derive one from the seed when none is given; it is never logged, stored or answered.
   */
  custodyMnemonic?: string;
  /** A file holding the custody mnemonic (`--custody-mnemonic-file`); read once at start-up. */
  custodyMnemonicFile?: string;
}

/** The resolved wallet configuration of one runtime. */
export interface WalletConfig {
  readonly fees: FeeTable;
  /** How each network runs (`sim` unless configured). */
  readonly chains: Readonly<Record<Network, ChainSetting>>;
}

/** Injection token of {@link WalletConfig}. */
export const WalletConfig = Symbol.for('agent-services/WalletConfig') as ServiceIdentifier<WalletConfig>;

/** Resolves wallet options. @throws RangeError on an invalid fee or chain setting */
export function walletConfig(options: WalletOptions = {}): WalletConfig {
  return { fees: resolveFees(options.fees), chains: resolveChains(options) };
}
