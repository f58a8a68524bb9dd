import type { CheckDefinition } from '../types.js';
import { BROWSER_CHECKS } from './browser.js';
import { COMPUTE_CHECKS } from './compute.js';
import { EMAIL_CHECKS } from './email.js';
import { IDENTITY_CHECKS } from './identity.js';
import { MEMORY_CHECKS } from './memory.js';
import { PHONE_CHECKS } from './phone.js';
import { POLICY_CHECKS } from './policy.js';
import { SERVICE_CHECKS } from './service.js';
import { WALLET_CHECKS } from './wallet.js';
import { WEBHOOKS_CHECKS } from './webhooks.js';

/** The whole suite, area by area in the order of `AREAS`. */
export const ALL_CHECKS: readonly CheckDefinition[] = [
  ...SERVICE_CHECKS,
  ...IDENTITY_CHECKS,
  ...WALLET_CHECKS,
  ...EMAIL_CHECKS,
  ...MEMORY_CHECKS,
  ...PHONE_CHECKS,
  ...COMPUTE_CHECKS,
  ...BROWSER_CHECKS,
  ...WEBHOOKS_CHECKS,
  ...POLICY_CHECKS,
];
