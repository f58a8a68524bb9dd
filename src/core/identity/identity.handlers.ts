import { bindRoute, callerOf, type BoundRoute } from '../api/route.js';
import { identityRoutes as routes } from './identity.routes.js';
import type { IdentityService } from './identity.service.js';

/** Binds the identity routes to the service. */
export function identityHandlers(identity: IdentityService): BoundRoute[] {
  return [
    bindRoute(routes.getProfile, (context) => identity.profile(callerOf(context))),
    bindRoute(routes.updateProfile, (context, { body }) => identity.updateProfile(callerOf(context), body)),
    bindRoute(routes.listCredentials, (context) => identity.credentials(callerOf(context))),
    bindRoute(routes.getPublicProfile, (_context, { params }) => identity.publicProfile(params.handle)),
    bindRoute(routes.didDocument, () => identity.didDocument()),
  ];
}
