import type { TypedCall } from '../api/typed-call.js';
import { identityRoutes as routes } from './identity.routes.js';
import type { CredentialList, DidDocument, Profile, PublicProfile, UpdateProfileBody } from './identity.schema.js';

/** Identity endpoints as client methods. */
export interface IdentityClient {
  /** `GET /v1/agent` */
  getProfile(): Promise<Profile>;
  /** `PATCH /v1/agent` */
  updateProfile(body: UpdateProfileBody): Promise<Profile>;
  /** `GET /v1/agent/credentials` */
  listCredentials(): Promise<CredentialList>;
  /** `GET /v1/agent/{handle}` (public) */
  getPublicProfile(handle: string): Promise<PublicProfile>;
  /** `GET /.well-known/did.json` (public) */
  getDidDocument(): Promise<DidDocument>;
}

/** Builds the identity methods over a typed call. */
export function identityClient(call: TypedCall): IdentityClient {
  return {
    getProfile: () => call(routes.getProfile),
    updateProfile: (body) => call(routes.updateProfile, { body }),
    listCredentials: () => call(routes.listCredentials),
    getPublicProfile: (handle) => call(routes.getPublicProfile, { params: { handle } }),
    getDidDocument: () => call(routes.didDocument),
  };
}
