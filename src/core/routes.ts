import { computeRoutes } from './compute/compute.routes.js';
import { browserRoutes } from './browser/browser.routes.js';
import { controlRoutes } from './control/control.routes.js';
import { emailRoutes, emailSimRoutes } from './email/email.routes.js';
import { identityRoutes } from './identity/identity.routes.js';
import { memoryRoutes } from './memory/memory.routes.js';
import { phoneRoutes, phoneSimRoutes } from './phone/phone.routes.js';
import { walletRoutes, walletSimRoutes } from './wallet/wallet.routes.js';
import { webhooksRoutes, webhooksSimRoutes } from './webhooks/webhooks.routes.js';
import { faultsSimRoutes } from './faults/faults.routes.js';

/**
 * Every agent-facing route table, by area: the derived `AgentClient` has one namespace per entry
 * (`client.wallet.send(...)`). A new area adds one line here.
 */
export const AGENT_ROUTE_TABLES = {
  identity: identityRoutes,
  wallet: walletRoutes,
  email: emailRoutes,
  memory: memoryRoutes,
  webhooks: webhooksRoutes,
  phone: phoneRoutes,
  compute: computeRoutes,
  browser: browserRoutes,
};

/**
 * Every control-plane route table (`/_sim`, route ids `sim.<action>`, actions unique across
 * areas): the derived `SimClient` is flat (`sim.fundWallet(...)`). A new area adds one entry here.
 */
export const SIM_ROUTE_TABLES = [controlRoutes, walletSimRoutes, emailSimRoutes, phoneSimRoutes, webhooksSimRoutes, faultsSimRoutes] as const;
