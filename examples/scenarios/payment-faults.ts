/**
 * Payment faults for the chaos scenario, behind one small helper so the scenario reads the same
 * whatever it injects. They go through the fault language (`POST /_sim/faults`, target
 * `chain.submit`): a failed on-chain send is accepted, then ends `failed` at its confirmation with
 * the reason, and its money comes back.
 * In your own project import from 'agent-services' instead of '../../src/index.js'.
 */
import type { SimClient } from '../../src/index.js';

/** The next `count` on-chain sends are accepted and end `failed` at their confirmation. */
export async function failNextPayments(sim: SimClient, count: number, reason: string): Promise<void> {
  await sim.addFault({ target: 'chain.submit', effect: 'fail', count, error_code: reason });
}

/** Every on-chain send to `recipient` fails until the faults are cleared. */
export async function failPaymentsTo(sim: SimClient, recipient: string, reason: string): Promise<void> {
  await sim.addFault({ target: 'chain.submit', effect: 'fail', match: { to: recipient }, error_code: reason });
}

/** Removes every fault. */
export async function clearPaymentFaults(sim: SimClient): Promise<void> {
  await sim.clearFaults();
}
