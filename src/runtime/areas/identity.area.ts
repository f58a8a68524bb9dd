import { identityHandlers } from '../../core/identity/identity.handlers.js';
import { IdentityService } from '../../core/identity/identity.service.js';
import { identityRoutes } from '../../core/identity/identity.routes.js';
import { defineArea } from './area-module.js';

/** Identity: agents, profiles, credentials, reputation. */
export const identityArea = defineArea({
  name: 'identity',
  routes: identityRoutes,
  bind({ container }) {
    container.bind(IdentityService).toSelf();
  },
  start({ container }) {
    return identityHandlers(container.get(IdentityService));
  },
});
