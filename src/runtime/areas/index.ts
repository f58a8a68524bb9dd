import type { AreaModule } from './area-module.js';
import { identityArea } from './identity.area.js';

/** Every area of the service, in the order they are composed (identity first: others hook into it). */
export const AREAS: AreaModule[] = [identityArea];
