/**
 * Payment faults for the chaos scenario, behind one small helper so the scenario reads the same
 * whichever way the faults are injected. Today they go through the wallet's failure rules
 * (`POST /_sim/wallet/failures`, the shorthand DECISIONS.md keeps); with the fault language
 * (`POST /_sim/faults`) the bodies of these functions become
 * `sim.addFault({target: 'chain.submit', effect: 'fail', count})` and
 * `sim.addFault({target: 'chain.submit', effect: 'fail', match: {to: recipient}})`.
 * In your own project import from 'agent-services' instead of '../../src/index.js'.
 */
import type { SimClient } from '../../src/index.js';

/** The next `count` on-chain or bank sends are accepted and end `failed` at their confirmation. */
export async function failNextPayments(sim: SimClient, count: number, reason: string): Promise<void> {
  for (let i = 0; i < count; i++) await sim.addWalletFailure({ next: true, reason });
}

/** Every on-chain send to `recipient` fails until the faults are cleared. */
export async function failPaymentsTo(sim: SimClient, recipient: string, reason: string): Promise<void> {
  await sim.addWalletFailure({ recipient, reason });
}

/** Removes every payment fault. */
export async function clearPaymentFaults(sim: SimClient): Promise<void> {
  await sim.clearWalletFailures();
}
