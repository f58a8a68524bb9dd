import type { ServiceIdentifier } from '../shared/di.js';
import type { WalletFailureBody, WalletFailureRule } from '../wallet/wallet.schema.js';

/**
 * Failure injection of simulated payment rails (`/_sim/wallet/failures`). Bound only when the
 * rails are simulated; the control-plane routes answer 400 without it.
 */
export interface RailFaults {
  /** Adds a rule. @throws ApiError 400 invalid_recipient (recipient) */
  addFailure(body: WalletFailureBody): Promise<WalletFailureRule>;
  /** Removes every rule. */
  clearFailures(): Promise<void>;
}

/** Injection token of {@link RailFaults}. */
export const RailFaults = Symbol.for('agent-services/RailFaults') as ServiceIdentifier<RailFaults>;
