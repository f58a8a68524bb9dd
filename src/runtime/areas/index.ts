import { computeArea } from './compute.area.js';
import { emailArea } from './email.area.js';
import { identityArea } from './identity.area.js';
import { browserArea } from './browser.area.js';
import { memoryArea } from './memory.area.js';
import { phoneArea } from './phone.area.js';
import { walletArea } from './wallet.area.js';
import { faultsArea } from './faults.area.js';
import { policyArea } from './policy.area.js';
import { webhooksArea } from './webhooks.area.js';

/**
 * Every area of the service, in the order they are composed (identity first: others hook into it;
 * policy next: wallet, email, phone, compute and memory enforce it;
 * webhooks after the areas whose events it reads; faults last: it wraps the others' ports). The clients, the MCP tools and the agent-creation
 * body are derived from this list, so a new area is one entry here.
 */
export const AREAS = [identityArea, policyArea, walletArea, emailArea, memoryArea, phoneArea, computeArea, browserArea, webhooksArea, faultsArea] as const;

/** The type of one entry of {@link AREAS}. */
export type Area = (typeof AREAS)[number];

/** `A | B` as `A & B`: merges what the areas declare (sim route tables, creation fields) into one type. */
export type UnionToIntersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void ? I : never;
