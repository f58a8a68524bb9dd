import type { AreaModule } from './area-module.js';
import { computeArea } from './compute.area.js';
import { emailArea } from './email.area.js';
import { identityArea } from './identity.area.js';
import { browserArea } from './browser.area.js';
import { memoryArea } from './memory.area.js';
import { phoneArea } from './phone.area.js';
import { walletArea } from './wallet.area.js';
import { faultsArea } from './faults.area.js';
import { webhooksArea } from './webhooks.area.js';

/** Every area of the service, in the order they are composed (identity first: others hook into it). */
export const AREAS: AreaModule[] = [identityArea, walletArea, emailArea, memoryArea, phoneArea, computeArea, browserArea, webhooksArea, faultsArea];
