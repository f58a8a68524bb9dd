import { identityHandlers } from '../../core/identity/identity.handlers.js';
import { IdentityService } from '../../core/identity/identity.service.js';
import type { AreaModule } from './area-module.js';

/** Identity: agents, profiles, credentials, reputation. */
export const identityArea: AreaModule = {
  name: 'identity',
  bind({ container }) {
    container.bind(IdentityService).toSelf();
  },
  start({ container }) {
    return identityHandlers(container.get(IdentityService));
  },
};
