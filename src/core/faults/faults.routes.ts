import { defineRoute } from '../api/route.js';
import { AddFaultBody, Fault, FaultList, FaultParams } from './faults.schema.js';

/** The fault language of the simulation control plane (`/_sim/faults`, DECISIONS.md Faults). */
export const faultsSimRoutes = {
  /** Injects a fault into a port operation (chain.submit, mail.send, carrier.sms, ...): fail, delay or drop, with probability, count and match. `POST /_sim/faults` */
  addFault: defineRoute({
    id: 'sim.addFault',
    method: 'POST',
    path: '/_sim/faults',
    auth: 'admin',
    tag: 'simulation',
    status: 201,
    summary: 'Injects a fault into a port operation (chain.submit, mail.send, carrier.sms, ...): fail, delay or drop, with probability, count and match.',
    body: AddFaultBody,
    response: Fault,
  }),
  /** Every fault, oldest first, with its hits so far. `GET /_sim/faults` */
  listFaults: defineRoute({
    id: 'sim.listFaults',
    method: 'GET',
    path: '/_sim/faults',
    auth: 'admin',
    tag: 'simulation',
    status: 200,
    summary: 'Every fault, oldest first, with its hits so far.',
    response: FaultList,
  }),
  /** Removes one fault. `DELETE /_sim/faults/{fault_id}` */
  deleteFault: defineRoute({
    id: 'sim.deleteFault',
    method: 'DELETE',
    path: '/_sim/faults/{fault_id}',
    auth: 'admin',
    tag: 'simulation',
    status: 204,
    summary: 'Removes one fault.',
    params: FaultParams,
  }),
  /** Removes every fault. `DELETE /_sim/faults` */
  clearFaults: defineRoute({
    id: 'sim.clearFaults',
    method: 'DELETE',
    path: '/_sim/faults',
    auth: 'admin',
    tag: 'simulation',
    status: 204,
    summary: 'Removes every fault.',
  }),
};
