import type { z } from 'zod';
import { CreateAgentBody } from '../core/identity/identity.schema.js';
import { AREAS, type Area, type UnionToIntersection } from './areas/index.js';

type CreationShape = UnionToIntersection<Area extends infer A ? (A extends { creationFields?: infer F extends z.ZodRawShape } ? F : never) : never>;

/**
 * Body of `POST /_sim/agents`: identity's fields plus every area's `creationFields` (the wallet's
 * opening `balances`, the phone's `phone_country`, ...), each read back by that area's
 * `onAgentCreated` hook.
 */
export const SimCreateAgentBody = CreateAgentBody.extend(Object.assign({}, ...AREAS.map((area) => area.creationFields ?? {})) as CreationShape);
export type SimCreateAgentBody = z.infer<typeof SimCreateAgentBody>;
