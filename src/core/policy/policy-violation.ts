import { ApiError } from '../shared/api-error.js';

/** The rule a refusal broke: the dotted path of the limit in the policy document. */
export type PolicyRule =
  | 'wallet.per_transaction'
  | 'wallet.per_day'
  | 'wallet.recipients'
  | 'wallet.networks'
  | 'email.recipient_domains'
  | 'email.per_day'
  | 'phone.countries'
  | 'phone.sms_per_day'
  | 'phone.calls_per_day'
  | 'compute.runs_per_day'
  | 'compute.max_timeout_seconds'
  | 'memory.max_memories';

/**
 * A request that breaks its agent's policy: 403 `policy_violation` whose `param` names the
 * request field and whose message names the rule and its limit. Thrown inside the guarded
 * action's transaction, so nothing of the action stays.
 */
export class PolicyViolation extends ApiError {
  constructor(
    readonly rule: PolicyRule,
    param: string,
    message: string,
  ) {
    super('policy_violation', message, param);
  }
}
